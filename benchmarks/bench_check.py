"""What `ttt check`'s box costs: each corpus module graded with full coverage, in the box
and without it, a few times each, as a teacher runs it (the whole command).

Run:  .venv/bin/python benchmarks/bench_check.py [--runs 3] [MODULE ...]
Default modules: the corpus's plain minimax (no pruning, deepcopy) and alpha-beta ones.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import reference_course  # this folder's: the reference speed

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "usercode" / "corpus"
TTT = Path(sys.executable).with_name("ttt")


def timed(module: Path, isolation: str) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [str(TTT), "check", str(module), "--isolation", isolation, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{module.name} did not pass ({isolation}): {done.stdout[:300]}")
    return seconds


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    modules = args.modules or [CORPUS / "plain_minimax.py", CORPUS / "alphabeta_minimax.py"]
    print(f"{'module':<24} {'isolation':<9} {'best s':>7} {'median s':>9}")
    for module in modules:
        for isolation in ("required", "off"):
            runs = [timed(module, isolation) for _ in range(args.runs)]
            print(
                f"{module.name:<24} {isolation:<9} {min(runs):>7.1f} "
                f"{statistics.median(runs):>9.1f}"
            )


if __name__ == "__main__":
    main()
