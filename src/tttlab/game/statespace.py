"""Every position reachable from the empty board, as dense numpy arrays.

Positions are stored sorted by their base-3 id. A move only ever adds ``3**i`` or
``2 * 3**i`` to the id, so sorted order is also a topological order of the game graph:
parents come before children, and backward induction is a loop over indices in reverse.
Tabular learners, compiled kernels, the solver and the MDP all work on these arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
import numpy.typing as npt

from tttlab.errors import TttlabError
from tttlab.game.geometry import Geometry
from tttlab.game.position import Position, PositionError, cells_from_id
from tttlab.limits import ENUMERATION_CANDIDATES

__all__ = [
    "StateSpace",
    "StateSpaceTooLarge",
    "TableLayout",
    "estimate_positions",
    "state_space",
    "table_layout",
]

#: Refuse to enumerate when the bound on positions exceeds this (see :mod:`tttlab.limits`).
MAX_POSITIONS = ENUMERATION_CANDIDATES
#: Bytes of arrays kept per position per cell, plus a fixed part: used for the estimate.
_BYTES_PER_CELL = 1 + 4  # boards (int8) + next (int32)
_BYTES_FIXED = 8 + 4 + 4 + 1 + 1 + 1 + 1 + 1  # ids, canonical, ... flags
_CHUNK = 1 << 20


class StateSpaceTooLarge(TttlabError):
    """Enumerating this geometry would not fit on the machine.

    Examples:
        >>> from tttlab.game import Geometry
        >>> check_enumerable(Geometry.parse("5x5k4"))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tttlab.game.statespace.StateSpaceTooLarge: 5x5k4 may have up to ... positions ...
    """


def estimate_positions(geometry: Geometry) -> int:
    """An upper bound on reachable positions: boards whose mark counts could arise.

    Examples:
        >>> from tttlab.game import Geometry
        >>> estimate_positions(Geometry())      # 5,478 are reachable
        6046
    """
    n = geometry.cells
    return sum(math.comb(n, m) * math.comb(m, m // 2) for m in range(n + 1))


def estimate_bytes(geometry: Geometry) -> int:
    return estimate_positions(geometry) * (_BYTES_FIXED + _BYTES_PER_CELL * geometry.cells)


def check_enumerable(geometry: Geometry) -> None:
    """Raise :class:`StateSpaceTooLarge` with what is needed and what is allowed.

    Examples:
        >>> from tttlab.game import Geometry
        >>> check_enumerable(Geometry.parse("4x4k4")) is None   # 9.7 million: it fits
        True
    """
    bound = estimate_positions(geometry)
    if bound > MAX_POSITIONS:
        need = estimate_bytes(geometry) / 2**30
        raise StateSpaceTooLarge(
            f"{geometry.name} may have up to {bound:,} positions (about {need:,.1f} GiB of "
            f"tables); full tables are limited to {MAX_POSITIONS:,} positions"
        )


def decode(ids: npt.NDArray[np.int64], geometry: Geometry) -> npt.NDArray[np.int8]:
    """Cell codes (N × cells, int8) of an array of base-3 ids."""
    out = np.empty((ids.shape[0], geometry.cells), dtype=np.int8)
    rest = ids.copy()
    for i in range(geometry.cells):
        out[:, i] = rest % 3
        rest //= 3
    return out


@dataclass(frozen=True, eq=False)
class StateSpace:
    """Dense tables over the reachable positions of one geometry (N positions).

    Examples:
        >>> from tttlab.game import Geometry, state_space
        >>> space = state_space(Geometry())
        >>> space.size, int(space.terminal.sum()), int(space.ids[0])
        (5478, 958, 0)

    Attributes:
        ids: base-3 id of each position, ascending; index 0 is the empty board.
        next: index of the position after each move, N × cells; −1 where the cell is
            occupied or the game is over.
        terminal: the game is over.
        winner: 0 none, 1 X, 2 O.
        to_move: 1 (X) or 2 (O), the side that moves (or would move, if terminal).
        ply: marks on the board.
        canonical: index of the position's representative under the symmetry group
            (the image with the smallest id).
        symmetry: which permutation of ``geometry.symmetries`` maps the position to its
            representative: ``boards[canonical[i]] == boards[i][perm]``.
    """

    geometry: Geometry
    ids: npt.NDArray[np.int64]
    next: npt.NDArray[np.int32]
    terminal: npt.NDArray[np.bool_]
    winner: npt.NDArray[np.int8]
    ply: npt.NDArray[np.int8]
    canonical: npt.NDArray[np.int32]

    @property
    def size(self) -> int:
        return int(self.ids.shape[0])

    def decisions(self, side: int) -> npt.NDArray[np.intp]:
        """The rows of the open positions where ``side`` (1 X, 2 O) is to move."""
        return np.flatnonzero(~self.terminal & (self.to_move == int(side)))

    @cached_property
    def to_move(self) -> npt.NDArray[np.int8]:
        """1 (X) or 2 (O), the side that moves (or would move, if terminal): X on even
        plies. Derived from :attr:`ply` on first use."""
        out = np.where(self.ply % 2 == 0, 1, 2).astype(np.int8)
        out.setflags(write=False)
        return out

    @cached_property
    def symmetry(self) -> npt.NDArray[np.int8]:
        """Which permutation of ``geometry.symmetries`` maps each position to its
        representative (the first that reaches the smallest id), computed on first use:
        only symmetry-reduced learner tables read it."""
        from tttlab.game.compiled import symmetries

        out = symmetries(self.ids, self.geometry)
        out.setflags(write=False)
        return out

    @cached_property
    def boards(self) -> npt.NDArray[np.int8]:
        """Cell codes, N × cells (0 empty, 1 X, 2 O), decoded from the ids on first use
        (on 4×4 they would add 155 MB that most uses never read)."""
        out = decode(self.ids, self.geometry)
        out.setflags(write=False)
        return out

    def __len__(self) -> int:
        return self.size

    def find(self, state_id: int) -> int:
        """Index of a position id, or −1 if it is not reachable."""
        i = int(np.searchsorted(self.ids, state_id))
        return i if i < self.size and int(self.ids[i]) == state_id else -1

    def index(self, position: Position) -> int:
        """Index of a position; raises :class:`PositionError` if it is not reachable."""
        if position.geometry != self.geometry:
            raise PositionError(
                f"position is on {position.geometry.name}, tables are for {self.geometry.name}"
            )
        i = self.find(position.id)
        if i < 0:
            raise PositionError(f"{position} is not reachable from the empty board")
        return i

    def position(self, index: int) -> Position:
        return Position(self.geometry, cells_from_id(int(self.ids[index]), self.geometry))

    @property
    def nbytes(self) -> int:
        return sum(
            a.nbytes
            for a in (
                self.ids,
                self.next,
                self.terminal,
                self.winner,
                self.ply,
                self.canonical,
            )
        )

    def path_counts(self) -> npt.NDArray[np.int64]:
        """How many move sequences from the empty board reach each position."""
        from tttlab.game.compiled import path_counts

        return path_counts(self.next)

    def game_tree(self) -> dict[str, int]:
        """The game tree's size without a count per position: ``nodes`` (every move
        sequence from the empty board, the empty one included), ``games`` (complete ones)
        and their ``x_wins``, ``o_wins`` and ``draws``. Worked out over symmetry classes, so
        its memory is a small fraction of :meth:`path_counts`' (see
        :func:`tttlab.game.compiled.game_tree`)."""
        from tttlab.game.compiled import game_tree

        nodes, games, x_wins, o_wins, draws = game_tree(self)
        return {"nodes": nodes, "games": games, "x_wins": x_wins, "o_wins": o_wins, "draws": draws}

    def counts(self) -> dict[str, int]:
        """``terminal`` positions with their ``x_wins``, ``o_wins`` and ``draws``, and the
        positions up to symmetry (``classes``) and those not final (``open_classes``),
        counted as the positions that are their own representative, without sorting."""
        from tttlab.game.compiled import counts

        names = ("terminal", "x_wins", "o_wins", "draws", "classes", "open_classes")
        return dict(
            zip(
                names,
                (int(c) for c in counts(self.canonical, self.terminal, self.winner)),
                strict=True,
            )
        )


@lru_cache(maxsize=4)
def state_space(geometry: Geometry) -> StateSpace:
    """Every reachable position of ``geometry``: built by the compiled enumerator, kept in
    memory (a few boards) and on disk (see :mod:`tttlab.game.tablecache`).

    >>> s = state_space(Geometry(3, 3, 3))
    >>> s.size, int(s.terminal.sum())
    (5478, 958)
    """
    check_enumerable(geometry)
    from tttlab.game import tablecache  # imports numba only when a table is needed

    arrays = tablecache.load_or_build(geometry)
    for a in arrays.values():
        a.setflags(write=False)
    return StateSpace(geometry, **arrays)


@dataclass(frozen=True, eq=False)
class TableLayout:
    """How a value table's rows map to positions.

    With symmetry, one row per representative (the canonical position), so symmetric
    positions share values; a move ``a`` at position ``i`` reads column ``pinv[sym[i], a]``,
    the cell it becomes on the representative. Without, one row per position and the
    identity map.

    Examples:
        >>> from tttlab.game import Geometry, state_space, table_layout
        >>> table_layout(state_space(Geometry()), symmetric=True).size   # 765 classes
        765

    Attributes:
        symmetric: whether rows are representatives.
        rows: the state-space index of each table row, ascending.
        row_of: each position's table row.
        sym: each position's symmetry (see :attr:`StateSpace.symmetry`), 0 without symmetry.
        pinv: inverse permutations, S × cells.
    """

    symmetric: bool
    rows: npt.NDArray[np.int64]
    row_of: npt.NDArray[np.int32]
    sym: npt.NDArray[np.int8]
    pinv: npt.NDArray[np.int64]

    @property
    def size(self) -> int:
        return int(self.rows.shape[0])


@lru_cache(maxsize=8)
def table_layout(space: StateSpace, symmetric: bool) -> TableLayout:
    """The table layout of a state space, with or without symmetry reduction.

    Examples:
        >>> from tttlab.game import Geometry, state_space
        >>> table_layout(state_space(Geometry()), symmetric=False).size
        5478
    """
    cells = space.geometry.cells
    if not symmetric:
        rows = np.arange(space.size, dtype=np.int64)
        layout = TableLayout(
            False,
            rows,
            rows.astype(np.int32),
            np.zeros(space.size, dtype=np.int8),
            np.arange(cells, dtype=np.int64)[None, :],
        )
    else:
        reps = np.unique(space.canonical).astype(np.int64)
        row_of = np.searchsorted(reps, space.canonical).astype(np.int32)
        pinv = np.argsort(np.array(space.geometry.symmetries), axis=1).astype(np.int64)
        layout = TableLayout(True, reps, row_of, space.symmetry, pinv)
    for a in (layout.rows, layout.row_of, layout.pinv):
        a.setflags(write=False)
    return layout
