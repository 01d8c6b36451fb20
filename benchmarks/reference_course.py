"""The course's TD(0) self-play program in pure Python, for timing: the program itself is
``tttlab.usercode.reference`` (a numpy board, states hashed cell by cell, the backward sweep),
where ``ttt check`` measures the machine's reference speed with it (tttlab.usercode.speed).

Run, it prints the machine's reference speed (``make test`` does, before the tests):
3,000 episodes, set-up included, in CPU time (0.7 s at 4,100 episodes/s, 2.7 s at 1,100).

    .venv/bin/python benchmarks/reference_course.py [--episodes 3000]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

# The program lives in the package, where ttt check measures the same speed
# (tttlab.usercode.speed); the benchmarks import it from here.
from tttlab.usercode.reference import (
    LENGTH,
    Agent,
    Environment,
    initial_values,
    play_game,
    train,
)

__all__ = [
    "LENGTH",
    "Agent",
    "Environment",
    "initial_values",
    "main",
    "play_game",
    "speed",
    "train",
]


def speed(episodes: int = 3_000) -> tuple[float, float, float]:
    """The reference speed: ``train(episodes)`` timed whole, the two tables of initial values
    included (about two thirds of it at 3,000 episodes), in this process's CPU time, as
    ``ttt check`` measures it (tttlab.usercode.speed). Episodes/s, then the CPU seconds and
    the wall seconds it took (the same on a quiet machine)."""
    wall, cpu = time.perf_counter(), time.process_time()
    train(episodes)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return episodes / max(cpu, 1e-6), cpu, wall


def main(argv: list[str] | None = None, out: TextIO | None = None) -> None:
    parser = argparse.ArgumentParser(description="The machine's reference speed.")
    parser.add_argument("--episodes", type=int, default=3_000)
    args = parser.parse_args(argv)
    rate, cpu, wall = speed(args.episodes)
    print(
        f"reference speed: {rate:,.0f} episodes/s (benchmarks/reference_course.py: "
        f"{args.episodes:,} episodes in {cpu:.1f} s of CPU, {wall:.1f} s of wall time)",
        file=out or sys.stdout,
    )


def announce() -> None:
    """The reference speed, printed by every benchmark before its figures: on standard
    error, so that a benchmark's ``--json`` output stays JSON."""
    main([], sys.stderr)


if __name__ == "__main__":
    main()
