"""A class graded at once: `ttt check CLASS/*.py -j 1` against `-j N`, the whole command as a
teacher runs it, with the verdicts compared file by file.

The class is built from the test corpus: the alpha-beta and memoized CS50 modules in turn,
every third one with a classic bug (a player, utility or result mistake), so that passes and
failures are both graded.

Run:  .venv/bin/python benchmarks/bench_class.py [--files 29] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import reference_course  # this folder's: the reference speed

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "usercode" / "corpus"
TTT = Path(sys.executable).with_name("ttt")
BUGS = [
    ("return 1 if w == X else -1 if w == O else 0", "return 1 if w == X else 1 if w == O else 0"),
    ("return O if xs > os_ else X", "return X if xs > os_ else O"),
]


def build(folder: Path, files: int) -> list[Path]:
    sources = [(CORPUS / n).read_text() for n in ("alphabeta_minimax.py", "memo_minimax.py")]
    made = []
    for i in range(files):
        source = sources[i % 2]
        if i % 3 == 2:
            old, new = BUGS[(i // 3) % len(BUGS)]
            assert old in source, old  # a corpus edit must not silently drop the bug
            source = source.replace(old, new, 1)
        path = folder / f"student{i:02d}.py"
        path.write_text(source)
        made.append(path)
    return made


def graded(paths: list[Path], jobs: int) -> tuple[float, list[dict[str, object]]]:
    start = time.perf_counter()
    done = subprocess.run(
        [str(TTT), "check", *map(str, paths), "--json", "-j", str(jobs)],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"ttt check failed ({done.returncode}): {done.stderr[-500:]}")
    verdicts = []
    for line in done.stdout.splitlines():
        report = json.loads(line)
        checks = {name: c["status"] for name, c in report["checks"].items()}
        verdicts.append({"file": report["file"], "status": report["status"], "checks": checks})
    return seconds, verdicts


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=29)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        paths = build(Path(folder), args.files)
        serial, one = graded(paths, 1)
        parallel, many = graded(paths, args.jobs)
    if one != many:
        raise SystemExit("the verdicts differ between -j 1 and -j N")
    failed = sum(v["status"] != "pass" for v in one)
    print(f"{args.files} files ({failed} fail), cores {len(os.sched_getaffinity(0))}")
    ratio = parallel / serial
    print(f"-j 1: {serial:.1f} s   -j {args.jobs}: {parallel:.1f} s   ratio {ratio:.2f}")


if __name__ == "__main__":
    main()
