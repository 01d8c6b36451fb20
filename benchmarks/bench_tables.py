"""The compiled enumerator: whole `ttt solve --positions` commands, timed, with peak memory.

Each figure is one fresh process (`/usr/bin/time`-style peak RSS from the kernel), so it
includes start-up, imports and JSON output. Three cases per board: the table cache cold
(built and written), warm (read and checked), and off (built, not written). The compile
cache of numba is warmed first, as after any first run on a machine.

Run:  .venv/bin/python benchmarks/bench_tables.py [--boards 3x3k3,4x4k4]
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


def command(board: str, cache: str) -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of one whole command, from the kernel's accounting of
    that one child (``wait4``)."""
    env = dict(os.environ, TTTLAB_CACHE_DIR=cache)
    started = time.perf_counter()
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("ttt")),
            "solve",
            "--board",
            board,
            "--positions",
            "--json",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"ttt solve --board {board} failed ({proc.returncode})")
    return seconds, usage.ru_maxrss / 1024  # KiB on Linux


def in_process(board: str, repeat: int = 20) -> float:
    """Best time of the enumerator itself in a warm process (tables not cached anywhere)."""
    code = (
        "import time, os\n"
        "from tttlab.game import Geometry\n"
        "from tttlab.game.compiled import build_tables\n"
        f"g = Geometry.parse({board!r}); build_tables(g)\n"
        "best = min((lambda t: (build_tables(g), time.perf_counter() - t)[1])(time.perf_counter())"
        f" for _ in range({repeat}))\n"
        "print(best)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout)


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--boards", default="3x3k3,3x4k3,4x4k3,4x4k4")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as warmup:
        command("3x3k3", warmup)  # numba's compile cache
    for board in args.boards.split(","):
        with tempfile.TemporaryDirectory() as cache:
            cold = command(board, cache)
            warm = command(board, cache)
        off = command(board, "off")
        build = in_process(board, repeat=3 if board.endswith("k4") else 20)
        results.append(
            {"board": board, "cold": cold, "warm": warm, "off": off, "enumerate_s": build}
        )
        if not args.json:
            print(
                f"{board:8s} cache cold {cold[0]:6.2f} s {cold[1]:7.0f} MiB "
                f"| warm {warm[0]:6.2f} s "
                f"{warm[1]:7.0f} MiB | off {off[0]:6.2f} s {off[1]:7.0f} MiB | enumerator alone "
                f"{build * 1000:9.1f} ms",
                flush=True,
            )
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
