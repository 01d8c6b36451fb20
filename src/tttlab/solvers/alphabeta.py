"""Alpha-beta (negamax) search for any m,n,k board.

Scores are those of :mod:`tttlab.solvers.table`, seen from the side to move: winning in d
plies scores ``B - d`` (B = cells + 1), losing in d plies ``-(B - d)``, a draw 0. With a
depth limit, unfinished leaves get a heuristic score strictly inside (−1, 1), so a proven
result always outranks a guess.

The search keeps a mutable cell list and undoes each move on the way back up (as
python-chess's ``push``/``pop`` do); that stays private to this module. A transposition
table keyed by position id makes repeated searches, and whole-game play, cheap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tttlab.errors import TttlabError
from tttlab.game import Geometry, Position

__all__ = ["AlphaBeta", "SearchResult"]

#: What a transposition-table entry holds: the exact value, or a lower or upper bound.
EXACT, LOWER, UPPER = 0, 1, 2


def settles(flag: int, value: float, alpha: float, beta: float) -> bool:
    """Whether a stored result decides a node searched with the window (alpha, beta): an
    exact value, or a bound outside the window. Plain Python, which the compiled proof
    search (:mod:`tttlab.solvers.bitboard`) compiles as it is: one rule for both."""
    return flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha)


_INF = math.inf
_UNLIMITED = 1 << 30


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What one root search found.

    Attributes:
        score: the best score for the side to move.
        move_scores: score of each legal move, for the side to move.
        best_moves: every move that reaches ``score``.
        nodes: positions visited by this search.
        exact: False when a depth limit cut the search and heuristics were used.
    """

    score: float
    move_scores: dict[int, float]
    best_moves: tuple[int, ...]
    nodes: int
    exact: bool

    @property
    def value(self) -> int:
        """+1 win, 0 draw, −1 loss for the side to move (only meaningful if exact)."""
        return 0 if abs(self.score) < 1 else (1 if self.score > 0 else -1)


def _parent(child: float) -> float:
    """A child's score seen one ply up: negated, and a proven result one ply further away."""
    if child >= 1:
        return -child + 1
    if child <= -1:
        return -child - 1
    return -child


class AlphaBeta:
    """Negamax with alpha-beta pruning and a transposition table.

    Args:
        geometry: the board.
        max_depth: plies to search before using the heuristic; None searches to the end.
    """

    def __init__(self, geometry: Geometry, max_depth: int | None = None) -> None:
        if max_depth is not None and max_depth < 1:
            raise TttlabError(f"depth must be at least 1, got {max_depth}")
        self.geometry = geometry
        self.max_depth = max_depth
        self._big = geometry.cells + 1
        self._weights = [3**i for i in range(geometry.cells)]
        self._through = geometry.lines_through
        self._lines = geometry.lines
        centre_r, centre_c = (geometry.rows - 1) / 2, (geometry.cols - 1) / 2
        self._order = sorted(
            range(geometry.cells),
            key=lambda c: abs(c // geometry.cols - centre_r) + abs(c % geometry.cols - centre_c),
        )
        self._table: dict[int, tuple[int, int, float, int]] = {}
        self.nodes = 0
        self._cut = False

    def search(self, position: Position) -> SearchResult:
        """Score every legal move of ``position`` exactly (within the depth limit)."""
        if position.geometry != self.geometry:
            raise TttlabError(f"searcher is for {self.geometry.name}, got {position.geometry.name}")
        if position.is_terminal:
            raise TttlabError("the game is over: there is nothing to search")
        self.nodes = 0
        self._cut = False
        cells = list(position.cells)
        mover = int(position.to_move)
        state_id = position.id
        # Without a limit no heuristic is ever used, so every table entry is final:
        # a depth larger than any search makes them all reusable.
        depth = self.max_depth if self.max_depth is not None else _UNLIMITED
        empties = cells.count(0)
        scores: dict[int, float] = {}
        best = -_INF
        for move in self._order:
            if cells[move] != 0:
                continue
            child_id = state_id + mover * self._weights[move]
            cells[move] = mover
            if self._wins(cells, move, mover):
                child = float(-self._big)
            elif empties == 1:
                child = 0.0
            else:
                # A full window at the root: every move's score comes back exact, so ties
                # and the values shown to people are true scores, not bounds.
                child = self._negamax(cells, child_id, 3 - mover, depth - 1, -_INF, _INF)
            cells[move] = 0
            self.nodes += 1
            scores[move] = _parent(child)
            best = max(best, scores[move])
        moves = tuple(sorted(m for m, s in scores.items() if s == best))
        return SearchResult(best, dict(sorted(scores.items())), moves, self.nodes, not self._cut)

    def clear(self) -> None:
        self._table.clear()

    def _wins(self, cells: list[int], move: int, mover: int) -> bool:
        return any(all(cells[i] == mover for i in line) for line in self._through[move])

    def _heuristic(self, cells: list[int], mover: int) -> float:
        mine = theirs = 0.0
        for line in self._lines:
            marks = [cells[i] for i in line]
            if 3 - mover not in marks:
                mine += marks.count(mover) ** 2
            if mover not in marks:
                theirs += marks.count(3 - mover) ** 2
        return 0.9 * (mine - theirs) / (mine + theirs + 1.0)

    def _negamax(
        self, cells: list[int], state_id: int, mover: int, depth: int, alpha: float, beta: float
    ) -> float:
        """Score of the node for ``mover``; a bound outside (alpha, beta) (fail-soft)."""
        self.nodes += 1
        entry = self._table.get(state_id)
        best_first = -1
        if entry is not None:
            entry_depth, flag, value, best_first = entry
            # Heuristic leaves make a result depend on the depth it was searched to.
            if entry_depth >= depth and settles(flag, value, alpha, beta):
                return value
        if depth == 0:
            self._cut = True
            return self._heuristic(cells, mover)
        alpha0 = alpha
        best = -_INF
        best_move = -1
        order = self._order if best_first < 0 else [best_first, *self._order]
        empties = cells.count(0)
        seen = -1
        for move in order:
            if cells[move] != 0 or move == seen:
                continue
            if move == best_first:
                seen = move
            cells[move] = mover
            if self._wins(cells, move, mover):
                score = float(self._big - 1)
                self.nodes += 1
            elif empties == 1:
                score = 0.0
                self.nodes += 1
            else:
                child = self._negamax(
                    cells,
                    state_id + mover * self._weights[move],
                    3 - mover,
                    depth - 1,
                    -beta - 1,
                    -alpha + 1,
                )
                score = _parent(child)
            cells[move] = 0
            if score > best:
                best, best_move = score, move
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        stored = _UNLIMITED if self.max_depth is None else depth
        self._table[state_id] = (stored, flag, best, best_move)
        return best
