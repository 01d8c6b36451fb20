"""The one small agent protocol.

An agent picks a move for a position with a generator it is given, and can say which moves
it may play in evaluation mode (its move distribution) and, for display, what it thinks each
legal move is worth. Agents never print or read input; learning lives elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

import numpy as np

from tttlab.game import Position

__all__ = ["Agent", "sample", "uniform"]


@runtime_checkable
class Agent(Protocol):
    """What every tttlab agent offers."""

    @property
    def name(self) -> str:
        """A short label, e.g. ``perfect`` or a file name."""
        ...

    def move_probabilities(self, position: Position) -> Mapping[int, float]:
        """The moves the agent may play here in evaluation mode, with their probabilities.

        Ties the agent breaks at random appear with equal shares. Exact evaluation is
        built on this.
        """
        ...

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        """Choose a legal move, using ``rng`` for every random choice."""
        ...

    def move_values(self, position: Position) -> Mapping[int, float] | None:
        """The agent's value of each legal move, from the mover's side, or None."""
        ...


def uniform(moves: tuple[int, ...] | list[int]) -> dict[int, float]:
    """Equal probability over ``moves``."""
    share = 1.0 / len(moves)
    return {int(m): share for m in moves}


def sample(probabilities: Mapping[int, float], rng: np.random.Generator) -> int:
    """Draw one move from a distribution; a single move needs no random draw."""
    moves = list(probabilities)
    if len(moves) == 1:
        return moves[0]
    weights = np.fromiter(probabilities.values(), dtype=np.float64, count=len(moves))
    return moves[int(rng.choice(len(moves), p=weights / weights.sum()))]
