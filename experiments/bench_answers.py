"""Result: docs/guides/networks.md, section '`ttt train alphazero`'.

How many positions a second an agent answers in batches, as the judges ask it.

    .venv/bin/python experiments/bench_answers.py az.npz --positions 65536

The positions are those of seeded random games on the agent's board (every position before
the game's end, where the seat moves), asked in one batch with ``move_probability_rows``
when the agent has it (network and table agents), else position by position; the best of
``--repeat`` runs is reported. To compare two builds on the same file, run this script
with each build's ``src`` first on ``PYTHONPATH`` (a ``git worktree`` of the older commit).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tttlab.agents.base import probability_rows
from tttlab.api.agents import as_agent
from tttlab.errors import TttlabError
from tttlab.game import Geometry, Player, Position


def positions(geometry: Geometry, side: Player, count: int, seed: int) -> np.ndarray:
    """``count`` boards (with repeats) where ``side`` moves, from seeded random games."""
    rng = np.random.default_rng(seed)
    found: list[tuple[int, ...]] = []
    while len(found) < count:
        position = Position.initial(geometry)
        while not position.is_terminal:
            if position.to_move is side:
                found.append(position.cells)
            position = position.apply(int(rng.choice(position.legal_moves)))
    return np.array(found[:count], dtype=np.int8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("agent", help="an agent file or name, as ttt eval takes it")
    parser.add_argument("--board", default=None, help="RxCkK (default: the agent's)")
    parser.add_argument("--as", dest="side", default="X", choices=("X", "O"))
    parser.add_argument("--positions", type=int, default=65_536)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        if args.positions < 1 or args.repeat < 1:
            raise TttlabError("--positions and --repeat must be at least 1")
        board = None if args.board is None else Geometry.parse(args.board)
        agent, geometry = as_agent(args.agent, board)
    except TttlabError as error:
        raise SystemExit(f"bench_answers: {error}") from None
    side = Player.parse(args.side)
    boards = positions(geometry, side, args.positions, args.seed)
    # asked as the judges ask (tttlab.agents.base.rows_of), written out here so that the
    # script also runs on builds from before rows_of, to compare them
    batch = getattr(agent, "move_probability_rows", None)
    movers = np.full(len(boards), int(side))
    best = float("inf")
    for _ in range(args.repeat):
        began = time.perf_counter()
        if callable(batch):
            batch(boards, movers)
        else:
            probability_rows(agent, geometry, boards)
        best = min(best, time.perf_counter() - began)
    print(
        f"{agent.name} on {geometry.name}, {side.name}: {len(boards):,} positions in "
        f"{best:.2f} s, {len(boards) / best:,.0f} positions/s (best of {args.repeat})"
    )


if __name__ == "__main__":
    main()
