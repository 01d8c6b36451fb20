"""Built-in agents: ``random``, ``perfect`` (the solver's table) and ``minimax`` (alpha-beta)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from tttlab.agents.base import check_playable, on_rows, sample, spread, table_rows, uniform
from tttlab.game import Geometry, Player, Position
from tttlab.solvers import AlphaBeta, SearchResult, Solution, solve_table

__all__ = ["MinimaxAgent", "PerfectAgent", "RandomAgent"]


class _Checked:
    geometry: Geometry

    def _check(self, position: Position) -> None:
        check_playable(self.geometry, position)


class RandomAgent(_Checked):
    """Plays a uniformly random legal move.

    Examples:
        >>> from tttlab.game import Geometry, Position
        >>> RandomAgent(Geometry()).move_probabilities(Position.from_string("XO./XO./..."))
        {2: 0.2, 5: 0.2, 6: 0.2, 7: 0.2, 8: 0.2}
    """

    name = "random"
    deterministic = True  # its uniform choice is its whole play

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry

    def move_probabilities(self, position: Position) -> Mapping[int, float]:
        self._check(position)
        return uniform(position.legal_moves)

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        return sample(self.move_probabilities(position), rng)

    def move_values(self, position: Position) -> Mapping[int, float] | None:
        return None


class PerfectAgent(_Checked):
    """Plays from the exact solution: uniformly among the moves that keep the game value
    and, among those, win fastest or lose slowest.

    Examples:
        >>> import numpy as np
        >>> from tttlab.game import Geometry, Position
        >>> agent = PerfectAgent(Geometry())
        >>> agent.select_move(Position.from_string("XX./OO./..."), np.random.default_rng(0))
        2
        >>> agent.move_values(Position.from_string("XX./OO./..."))[2]   # +1: a win
        1.0
    """

    deterministic = True

    name = "perfect"

    def __init__(self, geometry: Geometry, solution: Solution | None = None) -> None:
        self.geometry = geometry
        self.solution = solution if solution is not None else solve_table(geometry)

    def move_probabilities(self, position: Position) -> Mapping[int, float]:
        self._check(position)
        return uniform(self.solution.best_moves(position))

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        return sample(self.move_probabilities(position), rng)

    def policy_matrix(self, side: Player) -> npt.NDArray[np.float64]:
        """Evaluation-mode move probabilities at every position where ``side`` moves, from
        the solution's table of best moves at once (not position by position)."""
        space = self.solution.space
        rows = space.decisions(side)
        return on_rows(space, rows, spread(self.solution.best[rows]))

    def move_probability_rows(
        self, boards: npt.NDArray[Any], movers: npt.NDArray[Any]
    ) -> npt.NDArray[np.float64]:
        """Evaluation-mode move probabilities for a batch of open boards (n × cells) at
        once, from the table of best moves."""
        return spread(self.solution.best[table_rows(self.solution.space, boards)])

    def move_values(self, position: Position) -> Mapping[int, float] | None:
        """+1 / 0 / −1 for the mover: the game value after each legal move."""
        self._check(position)
        space = self.solution.space
        i = space.index(position)
        sign = position.to_move.sign
        return {
            int(m): float(sign * self.solution.value[space.next[i, m]])
            for m in position.legal_moves
        }


class MinimaxAgent(_Checked):
    """Alpha-beta search on any board; ties are broken uniformly.

    Args:
        geometry: the board.
        depth: plies to search before a heuristic takes over; None searches to the end.

    Examples:
        >>> from tttlab.game import Geometry, Position
        >>> MinimaxAgent(Geometry()).move_probabilities(Position.from_string("XX./OO./..."))
        {2: 1.0}
    """

    deterministic = True

    #: Boards up to this many cells are searched to the end by default; larger ones to
    #: ``DEFAULT_DEPTH`` plies, so that a move takes well under a second in pure Python.
    EXACT_CELLS = 12
    DEFAULT_DEPTH = 4

    def __init__(self, geometry: Geometry, depth: int | None = None) -> None:
        self.geometry = geometry
        if depth is None and geometry.cells > self.EXACT_CELLS:
            depth = self.DEFAULT_DEPTH
        self.depth = depth
        self.searcher = AlphaBeta(geometry, max_depth=depth)
        self.last: SearchResult | None = None
        self._cache: dict[int, SearchResult] = {}

    @property
    def name(self) -> str:
        return "minimax" if self.depth is None else f"minimax(depth={self.depth})"

    def analyse(self, position: Position) -> SearchResult:
        """The full search result (scores, best moves, nodes searched)."""
        self._check(position)
        found = self._cache.get(position.id)
        if found is None:
            found = self.searcher.search(position)
            if len(self._cache) > 100_000:
                self._cache.clear()
            self._cache[position.id] = found
        self.last = found
        return found

    def move_probabilities(self, position: Position) -> Mapping[int, float]:
        return uniform(self.analyse(position).best_moves)

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        return sample(self.move_probabilities(position), rng)

    def move_values(self, position: Position) -> Mapping[int, float] | None:
        """Search scores mapped to +1 / 0 / −1 when proven, else the heuristic in (−1, 1)."""
        result = self.analyse(position)
        return {m: _squash(s) for m, s in result.move_scores.items()}


def _squash(score: float) -> float:
    if score >= 1:
        return 1.0
    if score <= -1:
        return -1.0
    return float(score)
