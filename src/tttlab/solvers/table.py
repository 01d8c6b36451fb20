"""Exact solution of every reachable position by backward induction over the state space.

Scores fold the result and its distance into one integer, from X's side: with
``B = cells + 1``, a win for X in d plies scores ``B - d``, a win for O ``-(B - d)``, a draw 0.
X maximises and O minimises that score, which wins as fast as possible and loses as slowly
as possible. Alpha-beta (:mod:`tttlab.solvers.alphabeta`) uses the same scores, so the two
can be compared exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from tttlab.game import Geometry, Position, StateSpace, state_space

__all__ = ["Solution", "solve_table"]


@dataclass(frozen=True, eq=False)
class Solution:
    """Game-theoretic values of every position of a :class:`StateSpace`.

    Only the scores are computed by :func:`solve`; the other tables derive from them on
    first use.

    Attributes:
        space: the tables this solution indexes.
        score: folded score from X's side (see the module docstring).
        value: +1 X wins, 0 draw, −1 O wins, under perfect play.
        depth: plies to the end under perfect play (winner hurries, loser delays).
        optimal: N × cells, True for moves that keep the position's value.
        best: N × cells, True for optimal moves that are also fastest to win or slowest
            to lose; what the ``perfect`` agent plays.

    On 4×4 ``optimal`` and ``best`` are 155 MB each, and most uses (the value of a board,
    its counts) never read them.
    """

    space: StateSpace
    score: npt.NDArray[np.int16]

    @property
    def geometry(self) -> Geometry:
        return self.space.geometry

    @cached_property
    def value(self) -> npt.NDArray[np.int8]:
        out = np.sign(self.score).astype(np.int8)
        out.setflags(write=False)
        return out

    @cached_property
    def depth(self) -> npt.NDArray[np.int16]:
        big = self.geometry.cells + 1
        out = np.where(
            self.score != 0, big - np.abs(self.score), self.geometry.cells - self.space.ply
        ).astype(np.int16)
        out.setflags(write=False)
        return out

    def value_at(self, index: int) -> int:
        """The value of one position (+1, 0, −1), without building :attr:`value`."""
        return int(np.sign(self.score[index]))

    def depth_at(self, index: int) -> int:
        """Plies to the end of one position under perfect play."""
        score = int(self.score[index])
        if score != 0:
            return self.geometry.cells + 1 - abs(score)
        return self.geometry.cells - int(self.space.ply[index])

    @cached_property
    def optimal(self) -> npt.NDArray[np.bool_]:
        return self._moves(best=False)

    @cached_property
    def best(self) -> npt.NDArray[np.bool_]:
        return self._moves(best=True)

    def _moves(self, best: bool) -> npt.NDArray[np.bool_]:
        out = np.zeros((self.space.size, self.geometry.cells), dtype=np.bool_)
        _move_rows(self.space.next, self.space.terminal, self.score, self.score, best, out)
        out.setflags(write=False)
        return out

    def row_moves(self, index: int, best: bool = False) -> tuple[int, ...]:
        """The optimal (or best) moves of one position, without building the whole table."""
        out = np.zeros((1, self.geometry.cells), dtype=np.bool_)
        row = slice(index, index + 1)
        _move_rows(
            self.space.next[row], self.space.terminal[row], self.score, self.score[row], best, out
        )
        return tuple(int(m) for m in np.flatnonzero(out[0]))

    def value_of(self, position: Position) -> int:
        return int(self.value[self.space.index(position)])

    def optimal_moves(self, position: Position) -> tuple[int, ...]:
        return self.row_moves(self.space.index(position), best=False)

    def best_moves(self, position: Position) -> tuple[int, ...]:
        return self.row_moves(self.space.index(position), best=True)


def shrink(score: npt.NDArray[np.int16]) -> npt.NDArray[np.int16]:
    """One ply further from the end: decisive scores move one step toward zero."""
    return (score - np.sign(score)).astype(np.int16)


@njit(cache=True)
def _scores(
    nxt: np.ndarray,
    terminal: np.ndarray,
    winner: np.ndarray,
    ply: np.ndarray,
    big: int,
) -> np.ndarray:  # pragma: no cover - compiled
    """Backward induction: children have larger indices, so one reverse sweep suffices."""
    n, cells = nxt.shape
    score = np.zeros(n, dtype=np.int16)
    for i in range(n - 1, -1, -1):
        if terminal[i]:
            score[i] = big if winner[i] == 1 else (-big if winner[i] == 2 else 0)
            continue
        x_moves = ply[i] % 2 == 0
        chosen = -2 * big if x_moves else 2 * big
        for c in range(cells):
            j = nxt[i, c]
            if j < 0:
                continue
            s = int(score[j])
            s = s - 1 if s > 0 else (s + 1 if s < 0 else s)
            if (x_moves and s > chosen) or (not x_moves and s < chosen):
                chosen = s
        score[i] = chosen
    return score


@njit(cache=True, parallel=True)
def _move_rows(
    nxt: np.ndarray,
    terminal: np.ndarray,
    score: np.ndarray,
    own: np.ndarray,
    best: bool,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """For rows ``i`` (with scores ``own[i]``): moves whose shrunk child score equals the
    position's score (best), or has its sign (optimal)."""
    for i in prange(nxt.shape[0]):
        if terminal[i]:
            continue
        target = np.int64(own[i])
        for c in range(nxt.shape[1]):
            j = nxt[i, c]
            if j < 0:
                continue
            s = int(score[j])
            s = s - 1 if s > 0 else (s + 1 if s < 0 else s)
            if best:
                out[i, c] = s == target
            else:
                out[i, c] = np.sign(s) == np.sign(target)


@lru_cache(maxsize=4)
def solve_table(geometry: Geometry) -> Solution:
    """Solve every reachable position of ``geometry`` (compiled backward induction).

    >>> s = solve_table(Geometry(3, 3, 3))
    >>> int(s.value[0]), int(s.depth[0])
    (0, 9)
    """
    space = state_space(geometry)
    big = geometry.cells + 1
    score = _scores(space.next, space.terminal, space.winner, space.ply, big)
    score.setflags(write=False)
    return Solution(space, score)
