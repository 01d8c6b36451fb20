"""Pure rules over frozen positions.

A :class:`Position` never changes: :meth:`Position.apply` returns the next one. Cells hold
0 (empty), 1 (X) or 2 (O), the seeds' encoding, so the state id of a position is
``sum(cell_i * 3**i)``.

>>> p = Position.from_string("X.O/.X./..O")
>>> p.to_move
<Player.X: 1>
>>> p.apply(6).to_string("/")
'X.O/.X./X.O'
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Literal

from tttlab.errors import TttlabError
from tttlab.game.geometry import DEFAULT, Geometry, GeometryError

__all__ = [
    "IllegalMoveError",
    "Outcome",
    "Player",
    "Position",
    "PositionError",
    "canonical_id",
    "cells_from_id",
    "id_of",
]

EMPTY = 0
_SYMBOL = {0: ".", 1: "X", 2: "O"}
_VALUE = {".": 0, "-": 0, "_": 0, "X": 1, "x": 1, "O": 2, "o": 2}
_SEPARATORS = re.compile(r"[/\s]")


class Player(enum.IntEnum):
    """A side, with the seeds' cell codes: X = 1 moves first, O = 2.

    Examples:
        >>> Player.X.other, Player.O.sign, Player.parse("o")
        (<Player.O: 2>, -1, <Player.O: 2>)
    """

    X = 1
    O = 2

    @property
    def other(self) -> Player:
        return Player.O if self is Player.X else Player.X

    @property
    def sign(self) -> int:
        """+1 for X, −1 for O: utilities are from X's side."""
        return 1 if self is Player.X else -1

    @classmethod
    def parse(cls, text: str) -> Player:
        key = text.strip().upper()
        if key in ("X", "1"):
            return cls.X
        if key in ("O", "2", "0"):
            return cls.O
        raise PositionError(f"side must be X or O, got {text!r}")


class PositionError(TttlabError):
    """A position string, id or cell list that does not describe a reachable position.

    Examples:
        >>> Position.from_string("XX./.../...")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tttlab.game.position.PositionError: ...
    """


class IllegalMoveError(TttlabError):
    """A move that cannot be played; the message names the cell and the reason.

    Examples:
        >>> Position.from_string("X........").apply(0)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tttlab.game.position.IllegalMoveError: illegal move 0: ...
    """

    def __init__(self, move: object, reason: str) -> None:
        self.move = move
        self.reason = reason
        super().__init__(f"illegal move {move!r}: {reason}")


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended: ``winner`` is None for a draw.

    Examples:
        >>> outcome = Position.from_string("XXX/OO./...").outcome
        >>> str(outcome), outcome.reason, outcome.utility
        ('X wins', 'line', 1)
    """

    winner: Player | None
    reason: Literal["line", "full board"]

    @property
    def utility(self) -> int:
        return 0 if self.winner is None else self.winner.sign

    def __str__(self) -> str:
        return "draw" if self.winner is None else f"{self.winner.name} wins"


def _winner_of(geometry: Geometry, cells: tuple[int, ...]) -> int:
    for line in geometry.lines:
        first = cells[line[0]]
        if first and all(cells[i] == first for i in line):
            return first
    return EMPTY


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable board position. Build one with :meth:`initial`, :meth:`from_string`,
    :meth:`from_id` or :meth:`from_cells`; move with :meth:`apply`.

    Examples:
        >>> p = Position.from_string("X.O/.X./..O")
        >>> q = p.apply(6)                  # a new position; p is unchanged
        >>> print(q)
        X.O/.X./X.O
        >>> q.to_move.name, q.id == p.id + 1 * 3**6, q.legal_moves
        ('O', True, (1, 3, 5, 7))
    """

    geometry: Geometry
    cells: tuple[int, ...]
    _winner: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.cells) != self.geometry.cells:
            raise PositionError(
                f"a {self.geometry.rows}x{self.geometry.cols} board has "
                f"{self.geometry.cells} cells, got {len(self.cells)}"
            )
        if any(c not in (0, 1, 2) for c in self.cells):
            raise PositionError("cells must be 0 (empty), 1 (X) or 2 (O)")
        object.__setattr__(self, "_winner", _winner_of(self.geometry, self.cells))

    # ----- construction -------------------------------------------------------------
    @classmethod
    def initial(cls, geometry: Geometry = DEFAULT) -> Position:
        return cls(geometry, (EMPTY,) * geometry.cells)

    @classmethod
    def from_cells(
        cls, cells: tuple[int, ...] | list[int], geometry: Geometry = DEFAULT
    ) -> Position:
        """A position from cell codes, checked to be reachable from the empty board."""
        position = cls(geometry, tuple(int(c) for c in cells))
        position.check_reachable()
        return position

    @classmethod
    def from_string(cls, text: str, geometry: Geometry | None = None) -> Position:
        """Parse ``X.O/.X./..O`` (rows separated by '/', optional) into a position.

        Without a geometry, a string with '/' gives the board's shape (k = shorter side);
        one without must have 9 cells (3×3). Errors say what is wrong in one line.
        """
        if not isinstance(text, str):
            raise PositionError(f"a position must be a string, got {type(text).__name__}")
        stripped = text.strip()
        rows = [r for r in stripped.split("/")] if "/" in stripped else None
        if geometry is None:
            if rows is not None:
                widths = {len(_SEPARATORS.sub("", r)) for r in rows}
                if len(widths) != 1:
                    raise PositionError(f"rows of {text!r} have different lengths")
                try:
                    geometry = Geometry.parse(f"{len(rows)}x{widths.pop()}")
                except GeometryError as err:
                    raise PositionError(str(err)) from None
            else:
                geometry = DEFAULT
        elif rows is not None:
            widths = {len(_SEPARATORS.sub("", r)) for r in rows}
            if len(rows) != geometry.rows or widths != {geometry.cols}:
                raise PositionError(
                    f"{text!r} is not {geometry.rows} rows of {geometry.cols} cells"
                )
        body = _SEPARATORS.sub("", stripped)
        if len(body) != geometry.cells:
            raise PositionError(
                f"position must have {geometry.cells} cells for {geometry.name}, "
                f"got {len(body)} in {text!r}"
            )
        bad = sorted({ch for ch in body if ch not in _VALUE})
        if bad:
            raise PositionError(
                f"position may only contain X, O and '.', found {''.join(bad)!r} in {text!r}"
            )
        return cls.from_cells([_VALUE[ch] for ch in body], geometry)

    @classmethod
    def from_id(cls, state_id: int, geometry: Geometry = DEFAULT) -> Position:
        """The position with the given base-3 id, checked to be reachable."""
        return cls.from_cells(cells_from_id(state_id, geometry), geometry)

    def check_reachable(self) -> None:
        """Raise :class:`PositionError` unless some legal game reaches this position."""
        n_x, n_o = self.cells.count(1), self.cells.count(2)
        if not 0 <= n_x - n_o <= 1:
            raise PositionError(
                f"X has {n_x} marks and O has {n_o}: X moves first, so X must have "
                "as many marks as O or one more"
            )
        lines = {
            p: [ln for ln in self.geometry.lines if all(self.cells[i] == p for i in ln)]
            for p in (1, 2)
        }
        if lines[1] and lines[2]:
            raise PositionError("both X and O have a line")
        for p, own in lines.items():
            if not own:
                continue
            if (p == 1) != (n_x > n_o):
                who = _SYMBOL[p]
                raise PositionError(f"{who} has a line but play went on after {who} won")
            # The winning move must lie on every line of the winner, and the board before
            # it must have had no line: otherwise the game would have ended earlier.
            shared = set(own[0]).intersection(*own[1:])
            ok = False
            for cell in shared:
                before = list(self.cells)
                before[cell] = EMPTY
                if _winner_of(self.geometry, tuple(before)) == EMPTY:
                    ok = True
                    break
            if not ok:
                who = _SYMBOL[p]
                raise PositionError(f"{who} has lines that no single last move could complete")

    # ----- rules ---------------------------------------------------------------------
    @property
    def to_move(self) -> Player:
        """The side to move (the side that would move, on a finished board)."""
        return Player.X if self.cells.count(1) <= self.cells.count(2) else Player.O

    @property
    def ply(self) -> int:
        """Number of marks on the board."""
        return self.geometry.cells - self.cells.count(EMPTY)

    @property
    def winner(self) -> Player | None:
        return Player(self._winner) if self._winner else None

    @property
    def is_terminal(self) -> bool:
        return bool(self._winner) or EMPTY not in self.cells

    @property
    def outcome(self) -> Outcome | None:
        """The result if the game is over, else None."""
        if self._winner:
            return Outcome(Player(self._winner), "line")
        if EMPTY not in self.cells:
            return Outcome(None, "full board")
        return None

    @property
    def utility(self) -> int:
        """+1 if X has won, −1 if O has won, 0 otherwise (draws and unfinished games)."""
        return {0: 0, 1: 1, 2: -1}[self._winner]

    @property
    def legal_moves(self) -> tuple[int, ...]:
        """Empty cells in row-major order; none once the game is over."""
        if self.is_terminal:
            return ()
        return tuple(i for i, c in enumerate(self.cells) if c == EMPTY)

    def is_legal(self, move: int) -> bool:
        return (
            isinstance(move, int)
            and 0 <= move < self.geometry.cells
            and self.cells[move] == EMPTY
            and not self.is_terminal
        )

    def apply(self, move: int) -> Position:
        """The position after the side to move plays ``move`` (a 0-based cell index)."""
        if isinstance(move, bool) or not isinstance(move, int):
            raise IllegalMoveError(move, "a move is a cell index (an integer)")
        if not 0 <= move < self.geometry.cells:
            raise IllegalMoveError(move, f"cell is out of range 0..{self.geometry.cells - 1}")
        if self.is_terminal:
            raise IllegalMoveError(move, f"the game is already over ({self.outcome})")
        if self.cells[move] != EMPTY:
            raise IllegalMoveError(move, f"cell is occupied by {_SYMBOL[self.cells[move]]}")
        cells = list(self.cells)
        cells[move] = int(self.to_move)
        return Position(self.geometry, tuple(cells))

    @property
    def bitboards(self) -> tuple[int, int]:
        """X's and O's marks as bitmasks (bit i for cell i)."""
        x = sum(1 << i for i, c in enumerate(self.cells) if c == 1)
        o = sum(1 << i for i, c in enumerate(self.cells) if c == 2)
        return x, o

    # ----- ids and symmetry ----------------------------------------------------------
    @property
    def id(self) -> int:
        """The seeds' base-3 state id: cell i weighs 3**i; empty 0, X 1, O 2."""
        return id_of(self.cells)

    @property
    def canonical_id(self) -> int:
        """The smallest id over the board's symmetry group."""
        return canonical_id(self.cells, self.geometry)

    def transform(self, perm: tuple[int, ...]) -> Position:
        """The image of this position under a symmetry permutation (``new[i] = old[p[i]]``)."""
        return Position(self.geometry, tuple(self.cells[j] for j in perm))

    # ----- text ----------------------------------------------------------------------
    def _repr_svg_(self) -> str:
        """Jupyter draws a position with the web lab's SVG (one picture of a board)."""
        from tttlab.game.draw import board_svg

        return board_svg(self)

    def to_string(self, separator: str = "") -> str:
        """Row-major X/O/'.' notation; ``separator='/'`` puts '/' between rows."""
        rows = [
            "".join(
                _SYMBOL[c]
                for c in self.cells[r * self.geometry.cols : (r + 1) * self.geometry.cols]
            )
            for r in range(self.geometry.rows)
        ]
        return separator.join(rows)

    def __str__(self) -> str:
        return self.to_string("/")


def id_of(cells: tuple[int, ...] | list[int]) -> int:
    """The base-3 state id of a board: cell i weighs 3**i (empty 0, X 1, O 2).

    Examples:
        >>> id_of((1, 0, 2, 0, 0, 0, 0, 0, 0))   # X on cell 0, O on cell 2: 1 + 2·9
        19
    """
    total = 0
    for c in reversed(cells):
        total = total * 3 + c
    return total


def cells_from_id(state_id: int, geometry: Geometry = DEFAULT) -> tuple[int, ...]:
    """Decode a base-3 id into cell codes, refusing ids outside the board's range.

    Examples:
        >>> cells_from_id(19)
        (1, 0, 2, 0, 0, 0, 0, 0, 0)
    """
    if isinstance(state_id, bool) or not isinstance(state_id, int):
        raise PositionError(f"a state id must be an integer, got {state_id!r}")
    limit = 3**geometry.cells
    if not 0 <= state_id < limit:
        raise PositionError(f"state id {state_id} is outside 0..{limit - 1} for {geometry.name}")
    cells = []
    for _ in range(geometry.cells):
        state_id, digit = divmod(state_id, 3)
        cells.append(digit)
    return tuple(cells)


def canonical_id(cells: tuple[int, ...] | list[int], geometry: Geometry = DEFAULT) -> int:
    """The smallest id among the board's images under its symmetries (rotations and flips):
    the id of its class's representative.

    Examples:
        >>> canonical_id((0, 0, 1, 0, 0, 0, 0, 0, 0)), canonical_id((1, 0, 0, 0, 0, 0, 0, 0, 0))
        (1, 1)
    """
    return min(id_of([cells[j] for j in perm]) for perm in geometry.symmetries)
