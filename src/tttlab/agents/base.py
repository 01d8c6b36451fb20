"""The one small agent protocol.

An agent picks a move for a position with a generator it is given, and can say which moves
it may play in evaluation mode (its move distribution) and, for display, what it thinks each
legal move is worth. Agents never print or read input; learning lives elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from tttlab.errors import AgentError
from tttlab.game import Geometry, Player, Position, StateSpace

__all__ = ["Agent", "check_playable", "policy_matrix", "sample", "uniform"]


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


def check_playable(geometry: Geometry, position: Position) -> None:
    """Refuse a position on another board, or one where the game is over."""
    if position.geometry != geometry:
        raise AgentError(f"agent plays {geometry.name}, position is {position.geometry.name}")
    if position.is_terminal:
        raise AgentError("the game is over: there is no move to choose")


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


def policy_matrix(agent: Agent, space: StateSpace, side: Player) -> npt.NDArray[np.float64]:
    """The agent's evaluation-mode move probabilities at every position where ``side``
    moves, as an N × cells array (rows of other positions are zero).

    Agents with tables provide this directly (``agent.policy_matrix(side)``); others are
    asked position by position.
    """
    direct = getattr(agent, "policy_matrix", None)
    if callable(direct) and getattr(agent, "geometry", None) == space.geometry:
        result: npt.NDArray[np.float64] = direct(side)
        return result
    out = np.zeros((space.size, space.geometry.cells))
    for i in np.flatnonzero(~space.terminal & (space.to_move == int(side))):
        for move, p in agent.move_probabilities(space.position(int(i))).items():
            out[i, move] = p
    return out
