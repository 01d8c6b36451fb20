"""`ttt train alphazero` with its defaults, one whole process per seed, judged exactly.

    .venv/bin/python benchmarks/bench_alphazero.py                 # 3x3, seeds 0-4
    .venv/bin/python benchmarks/bench_alphazero.py --board 4x4k4 --episodes 300000 --seeds 0

Each run's time is the whole process (start-up, compilation, training, the exact
evaluation that `ttt train` prints). Boards whose graph is too big for `ttt train`'s own
evaluation are judged afterwards by `ttt eval` over the full table, timed separately.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def ttt(*args: str) -> tuple[dict[str, object], float]:
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "tttlab", *args, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="3x3k3")
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--episodes", type=int, default=None)
    args = parser.parse_args()
    perfect = 0
    seeds = [int(s) for s in args.seeds.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        for seed in seeds:
            out = Path(folder) / f"az{seed}.npz"
            extra = ["--episodes", str(args.episodes)] if args.episodes else []
            summary, seconds = ttt(
                "train", "alphazero", "--board", args.board, "--seed", str(seed),
                "--out", str(out), *extra,
            )  # fmt: skip
            evaluation = summary.get("evaluation")
            judged = ""
            if not isinstance(evaluation, dict):
                evaluation, eval_seconds = ttt("eval", str(out))
                judged = f" (ttt eval: {eval_seconds:.0f} s)"
            assert isinstance(evaluation, dict)
            seats = [
                f"{seat}: worst {r['worst_case']:+d} optimal {r['optimal_share']:.4f}"
                for seat, r in evaluation.items()
            ]
            ok = all(
                r["worst_case"] >= 0 and r["optimal_share"] == 1.0 for r in evaluation.values()
            )
            perfect += ok
            print(
                f"seed {seed}: {summary['episodes']:,} games, {seconds:.1f} s whole process"
                f"{judged}; " + "; ".join(seats),
                flush=True,
            )
    print(f"{perfect} of {len(seeds)} seeds: worst case 0 on both seats and optimal share 1.0")


if __name__ == "__main__":
    main()
