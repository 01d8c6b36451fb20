"""``perfect`` past the full tables, playing from proofs: whole games on boards whose value is
published, against itself, ``minimax`` and ``random``, each agent with one proof table for
all its moves. Prints each game's result, plies, time and the agent's slowest move, and
exits 1 if perfect ever lets its side's published value go.

Run:  .venv/bin/python benchmarks/perfect_play.py [--boards 6x5k4,5x5k4,4x5k4,7x4k4]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import reference_course  # this folder's: the reference speed

from tttlab.agents import Agent, make_agent
from tttlab.game import Geometry, Position

#: Published values from X's side (benchmarks/mnk_table.py has the sources).
PUBLISHED = {"6x5k4": 1, "5x5k4": 0, "4x5k4": 0, "7x4k4": 0, "5x6k4": 1}


def game(x: Agent, o: Agent, geometry: Geometry, seed: int) -> tuple[int, int, float, float]:
    """(X's result, plies, seconds, perfect's slowest move in seconds)."""
    rng = np.random.default_rng(seed)
    position = Position.initial(geometry)
    started = time.perf_counter()
    slowest = 0.0
    while not position.is_terminal:
        mover = x if position.to_move.sign == 1 else o
        t = time.perf_counter()
        move = mover.select_move(position, rng)
        if mover.name == "perfect":
            slowest = max(slowest, time.perf_counter() - t)
        position = position.apply(move)
    return position.utility, position.ply, time.perf_counter() - started, slowest


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default="6x5k4,5x5k4,4x5k4,7x4k4")
    args = parser.parse_args()
    wrong = 0
    for board in args.boards.split(","):
        geometry = Geometry.parse(board)
        value = PUBLISHED[geometry.name]
        for x_name, o_name in [
            ("perfect", "perfect"),
            ("perfect", "minimax"),
            ("minimax", "perfect"),
            ("perfect", "random"),
            ("random", "perfect"),
        ]:
            x, o = make_agent(x_name, geometry), make_agent(o_name, geometry)
            result, plies, seconds, slowest = game(x, o, geometry, seed=0)
            kept = (x_name != "perfect" or result >= value) and (
                o_name != "perfect" or result <= value
            )
            wrong += not kept
            print(
                f"{geometry.name} (published {value:+d}) {x.name} as X, {o.name} as O: "
                f"{result:+d} in {plies} plies, {seconds:.1f} s, perfect's slowest move "
                f"{slowest:.1f} s{'' if kept else '  LET THE VALUE GO'}",
                flush=True,
            )
    raise SystemExit(1 if wrong else 0)


if __name__ == "__main__":
    main()
