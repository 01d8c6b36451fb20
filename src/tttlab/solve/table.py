"""Exact solution of every reachable position by backward induction over the state space.

Scores fold the result and its distance into one integer, from X's side: with
``B = cells + 1``, a win for X in d plies scores ``B - d``, a win for O ``-(B - d)``, a draw 0.
X maximises and O minimises that score, which wins as fast as possible and loses as slowly
as possible. Alpha-beta (:mod:`tttlab.solve.alphabeta`) uses the same scores, so the two
can be compared exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from tttlab.game import Geometry, Position, StateSpace, state_space

__all__ = ["Solution", "solve"]


@dataclass(frozen=True, eq=False)
class Solution:
    """Game-theoretic values of every position of a :class:`StateSpace`.

    Attributes:
        space: the tables this solution indexes.
        score: folded score from X's side (see the module docstring).
        value: +1 X wins, 0 draw, −1 O wins, under perfect play.
        depth: plies to the end under perfect play (winner hurries, loser delays).
        optimal: N × cells, True for moves that keep the position's value.
        best: N × cells, True for optimal moves that are also fastest to win or slowest
            to lose; what the ``perfect`` agent plays.
    """

    space: StateSpace
    score: npt.NDArray[np.int16]
    value: npt.NDArray[np.int8]
    depth: npt.NDArray[np.int16]
    optimal: npt.NDArray[np.bool_]
    best: npt.NDArray[np.bool_]

    @property
    def geometry(self) -> Geometry:
        return self.space.geometry

    def value_of(self, position: Position) -> int:
        return int(self.value[self.space.index(position)])

    def optimal_moves(self, position: Position) -> tuple[int, ...]:
        return tuple(int(m) for m in np.flatnonzero(self.optimal[self.space.index(position)]))

    def best_moves(self, position: Position) -> tuple[int, ...]:
        return tuple(int(m) for m in np.flatnonzero(self.best[self.space.index(position)]))


def shrink(score: npt.NDArray[np.int16]) -> npt.NDArray[np.int16]:
    """One ply further from the end: decisive scores move one step toward zero."""
    return (score - np.sign(score)).astype(np.int16)


@lru_cache(maxsize=4)
def solve(geometry: Geometry) -> Solution:
    """Solve every reachable position of ``geometry``.

    >>> s = solve(Geometry(3, 3, 3))
    >>> int(s.value[0]), int(s.depth[0])
    (0, 9)
    """
    space = state_space(geometry)
    big = geometry.cells + 1
    n = space.size
    score = np.zeros(n, dtype=np.int16)
    score[space.winner == 1] = big
    score[space.winner == 2] = -big
    optimal = np.zeros((n, geometry.cells), dtype=np.bool_)
    best = np.zeros((n, geometry.cells), dtype=np.bool_)
    for ply in range(int(space.ply.max()), -1, -1):
        layer = np.flatnonzero((space.ply == ply) & ~space.terminal)
        if layer.size == 0:
            continue
        children = space.next[layer]
        legal = children >= 0
        child_score = shrink(score[np.where(legal, children, 0)])
        x_moves = ply % 2 == 0  # X moves on even plies
        fill = np.int16(-2 * big if x_moves else 2 * big)
        masked = np.where(legal, child_score, fill)
        chosen = masked.max(axis=1) if x_moves else masked.min(axis=1)
        score[layer] = chosen
        best[layer] = legal & (masked == chosen[:, None])
        optimal[layer] = legal & (np.sign(masked) == np.sign(chosen)[:, None])
    value = np.sign(score).astype(np.int8)
    depth = np.where(value != 0, big - np.abs(score), geometry.cells - space.ply).astype(np.int16)
    for a in (score, value, depth, optimal, best):
        a.setflags(write=False)
    return Solution(space, score, value, depth, optimal, best)
