"""Agents that act from learned tables (TD values or Q values).

Acting is greedy in evaluation mode, ties broken uniformly. The tables are the trainer's
and the agent file's; this class only reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from tttlab.agents.base import check_playable, on_rows, sample, spread, table_rows, uniform
from tttlab.errors import AgentError
from tttlab.game import (
    Geometry,
    Player,
    Position,
    StateSpace,
    TableLayout,
    state_space,
    table_layout,
)

__all__ = ["TABLE_KINDS", "LearnedAgent"]

#: Algorithm → the kind of table it learns.
TABLE_KINDS = {
    "td": "V",
    "q": "Q",
    "sarsa": "Q",
    "expected-sarsa": "Q",
    "double-q": "Q",
    "mdp": "Q",
}


@dataclass(eq=False)
class LearnedAgent:
    """Greedy play from a value table.

    Attributes:
        algorithm: one of :data:`TABLE_KINDS`.
        geometry: the board.
        seats: the sides the tables were trained for.
        tables: ``{"V": (2, R)}`` for TD (one row per seat, X then O: each seat's estimate
            that it wins), or ``{"Q": (k, R, cells)}`` for the Q family (values from X's
            side, summed over the k tables; X maximises, O minimises). R is the number of
            table rows: positions, or representatives when ``symmetric``.
        symmetric: whether rows are indexed by representative (see ``table_layout``).
        meta: the agent file's header (hyperparameters, episodes, seed, ...).
    """

    algorithm: str
    geometry: Geometry
    seats: tuple[Player, ...]
    tables: dict[str, npt.NDArray[np.float64]]
    meta: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    symmetric: bool = False
    deterministic = True  # greedy over fixed tables (not a field)

    def __post_init__(self) -> None:
        self.space: StateSpace = state_space(self.geometry)
        self.layout: TableLayout = table_layout(self.space, self.symmetric)
        if self.algorithm not in TABLE_KINDS:
            raise AgentError(f"unknown algorithm {self.algorithm!r}")
        kind = TABLE_KINDS[self.algorithm]
        if kind == "Q":
            self._q = self.tables["Q"].sum(axis=0)
        else:
            self._v = self.tables["V"]

    def _q_values(self, positions: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
        """Q values (X's side) of every cell's move at these positions: n × cells."""
        layout = self.layout
        rows = self._q[layout.row_of[positions]]
        columns = layout.pinv[layout.sym[positions]]
        values: npt.NDArray[np.float64] = np.take_along_axis(rows, columns, axis=1)
        return values

    @property
    def name(self) -> str:
        return self.label or self.algorithm

    def _check_seat(self, side: Player) -> None:
        if side not in self.seats:
            trained = " and ".join(s.name for s in self.seats)
            raise AgentError(f"this agent was trained to play {trained} only")

    def _index(self, position: Position) -> int:
        check_playable(self.geometry, position)
        self._check_seat(position.to_move)
        return self.space.index(position)

    def _values(self, positions: npt.NDArray[np.intp], side: Player) -> npt.NDArray[np.float64]:
        """Values of every cell's move at these positions, from ``side``'s point of view:
        n × cells, −inf where the move is illegal."""
        children = self.space.next[positions]
        legal = children >= 0
        if TABLE_KINDS[self.algorithm] == "Q":
            values = side.sign * self._q_values(positions)
        else:
            values = self._v[int(side) - 1][self.layout.row_of[np.where(legal, children, 0)]]
        return np.where(legal, values, -np.inf)

    def action_values(self, index: int, side: Player) -> npt.NDArray[np.float64]:
        """Values of every move at a state index, from the mover's side (−inf if illegal)."""
        values: npt.NDArray[np.float64] = self._values(np.array([index]), side)[0]
        return values

    def policy_matrix(self, side: Player) -> npt.NDArray[np.float64]:
        """Evaluation-mode move probabilities at every position where ``side`` moves."""
        self._check_seat(side)
        space = self.space
        rows = space.decisions(side)
        values = self._values(rows, side)
        legal = space.next[rows] >= 0
        return on_rows(space, rows, spread(legal & (values == values.max(axis=1, keepdims=True))))

    def move_probability_rows(
        self, boards: npt.NDArray[Any], movers: npt.NDArray[Any]
    ) -> npt.NDArray[np.float64]:
        """Evaluation-mode move probabilities for a batch of open boards (n × cells) and
        their movers at once: the best moves, ties shared."""
        rows = table_rows(self.space, boards)
        out = np.zeros(np.shape(boards))
        for side in (Player.X, Player.O):
            mine = np.flatnonzero(np.asarray(movers) == int(side))
            if mine.size:
                self._check_seat(side)
                values = self._values(rows[mine], side)
                ties = np.isfinite(values) & (values == values.max(axis=1, keepdims=True))
                out[mine] = spread(ties)
        return out

    def move_probabilities(self, position: Position) -> Mapping[int, float]:
        values = self.action_values(self._index(position), position.to_move)
        best = values.max()
        return uniform([int(m) for m in np.flatnonzero(values == best)])

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        return sample(self.move_probabilities(position), rng)

    def move_values(self, position: Position) -> Mapping[int, float] | None:
        """Q values from the mover's side, or TD's estimate that the mover wins."""
        values = self.action_values(self._index(position), position.to_move)
        return {int(m): float(values[m]) for m in position.legal_moves}
