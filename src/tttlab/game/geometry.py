"""Board geometry: rows × cols with k in a row, its winning lines and its symmetries.

Everything here is derived from three integers and cached per geometry, so rules code can
look tables up instead of recomputing them (pgx keeps the same kind of ``idx`` table).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from tttlab.errors import TttlabError
from tttlab.limits import SEARCH_CELLS

__all__ = ["DEFAULT", "MAX_CELLS", "PLAY_CELLS", "Geometry", "GeometryError", "int64_word"]

#: The largest board: its two bitboards fit 64-bit words (8×8). Past :data:`PLAY_CELLS`
#: only the proof search (``ttt solve``) and the certificate checker take it.
MAX_CELLS = SEARCH_CELLS
#: The largest board that tttlab plays, learns and judges: its base-3 state id fits an int64
#: (3**39 < 2**63), which tables, judges and agents index by.
PLAY_CELLS = 39


def int64_word(bits: int) -> int:
    """A bitboard of up to 64 cells as the int64 that holds the same bits (cell 63, 8×8's
    last, is the sign bit)."""
    return bits - (1 << 64) if bits >> 63 else bits


_NAME = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*(?:[kK]\s*(\d+))?\s*$")


class GeometryError(TttlabError):
    """A board description that does not make a playable board.

    Examples:
        >>> Geometry.parse("3x3k4")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tttlab.game.geometry.GeometryError: ...
    """


@dataclass(frozen=True, slots=True, order=True)
class Geometry:
    """A rectangular board of ``rows`` × ``cols`` cells where ``k`` in a row wins.

    >>> Geometry(3, 3, 3).name
    '3x3k3'
    >>> Geometry.parse("4x4k4").cells
    16
    """

    rows: int = 3
    cols: int = 3
    k: int = 3

    def __post_init__(self) -> None:
        for label, value in (("rows", self.rows), ("cols", self.cols), ("k", self.k)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise GeometryError(f"{label} must be an integer, got {value!r}")
            if value < 1:
                raise GeometryError(f"{label} must be at least 1, got {value}")
        if self.rows * self.cols > MAX_CELLS:
            raise GeometryError(
                f"a {self.rows}x{self.cols} board has {self.rows * self.cols} cells; "
                f"at most {MAX_CELLS} are supported"
            )
        if self.k > max(self.rows, self.cols):
            raise GeometryError(
                f"k={self.k} does not fit on a {self.rows}x{self.cols} board "
                f"(at most {max(self.rows, self.cols)})"
            )

    @classmethod
    def parse(cls, text: str, k: int | None = None) -> Geometry:
        """Parse ``"RxC"`` or ``"RxCkK"``; ``k`` overrides or supplies the line length.

        Without a k anywhere, k is the shorter side (3×3 → 3, 3×4 → 3).
        """
        match = _NAME.match(text)
        if match is None:
            raise GeometryError(f"board must look like 3x3 or 4x4k4, got {text!r}")
        rows, cols = int(match.group(1)), int(match.group(2))
        named_k = int(match.group(3)) if match.group(3) else None
        if k is not None and named_k is not None and k != named_k:
            raise GeometryError(f"board {text!r} says k={named_k} but k={k} was also given")
        chosen = k if k is not None else named_k if named_k is not None else min(rows, cols)
        return cls(rows, cols, chosen)

    @property
    def name(self) -> str:
        return f"{self.rows}x{self.cols}k{self.k}"

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    @property
    def square(self) -> bool:
        return self.rows == self.cols

    def __str__(self) -> str:
        return self.name

    # Cached tables. Functions below are keyed on the (hashable) geometry.
    @property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        """Every winning line as a tuple of k cell indices."""
        return _lines(self)

    @property
    def line_masks(self) -> npt.NDArray[np.int64]:
        """Every winning line as a bitmask (bit i for cell i), for bitboard code."""
        return _line_masks(self)

    @property
    def lines_through(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """For each cell, the winning lines that pass through it."""
        return _lines_through(self)

    @property
    def line_table(self) -> npt.NDArray[np.intp]:
        """For each cell, the lines through it (cells × most lines × k); shorter lists are
        padded with lines of cell ``cells``, a column that is always empty (see
        :meth:`completes_line`)."""
        return _line_table(self)

    def completes_line(
        self, boards: npt.NDArray[Any], moves: npt.NDArray[Any], pieces: Any
    ) -> npt.NDArray[np.bool_]:
        """Whether the stone just placed at ``moves[i]`` in ``boards[i]`` completes a line of
        ``pieces`` (1 X, 2 O: one per board, or one for all), reading only the lines through
        that cell. ``boards`` are after the moves: n × cells, or n × (cells + 1) with the
        last column empty (then nothing is copied)."""
        boards = np.asarray(boards)
        if boards.shape[1] == self.cells:
            boards = np.concatenate([boards, np.zeros((len(boards), 1), boards.dtype)], axis=1)
        stones = boards[np.arange(len(boards))[:, None, None], self.line_table[moves]]
        found: npt.NDArray[np.bool_] = (
            (stones == np.asarray(pieces).reshape(-1, 1, 1)).all(axis=2).any(axis=1)
        )
        return found

    @property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The board's symmetry group as permutations ``p``: ``new[i] = old[p[i]]``.

        Eight on a square board (rotations and reflections), four otherwise.
        The identity comes first.
        """
        return _symmetries(self)

    @property
    def weights(self) -> npt.NDArray[np.int64]:
        """``3**i`` for each cell i: the weights of the base-3 state id (int64, so boards
        up to :data:`PLAY_CELLS` cells)."""
        self.require_play_size()
        return _weights(self)

    def require_play_size(self) -> None:
        """Refuse, in one line, a board past :data:`PLAY_CELLS` cells (one that only the
        proof search takes) where it would be played, learned or judged."""
        if self.cells > PLAY_CELLS:
            raise GeometryError(
                f"{self.name} has {self.cells} cells; boards past {PLAY_CELLS} cells are for "
                "the proof search only (ttt solve)"
            )

    def cell(self, row: int, col: int) -> int:
        """The row-major index of a 0-based (row, col)."""
        return row * self.cols + col

    def row_col(self, cell: int) -> tuple[int, int]:
        """The 0-based (row, col) of a row-major cell index."""
        return divmod(cell, self.cols)


DEFAULT = Geometry(3, 3, 3)


@cache
def _lines(g: Geometry) -> tuple[tuple[int, ...], ...]:
    found: list[tuple[int, ...]] = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(g.rows):
            for c in range(g.cols):
                end_r, end_c = r + dr * (g.k - 1), c + dc * (g.k - 1)
                if 0 <= end_r < g.rows and 0 <= end_c < g.cols:
                    found.append(tuple(g.cell(r + dr * i, c + dc * i) for i in range(g.k)))
    # k = 1 makes every direction yield the same single cells; keep each line once.
    return tuple(dict.fromkeys(tuple(sorted(line)) for line in found))


@cache
def _line_masks(g: Geometry) -> npt.NDArray[np.int64]:
    masks = np.array([int64_word(sum(1 << c for c in line)) for line in g.lines], dtype=np.int64)
    masks.setflags(write=False)
    return masks


@cache
def _lines_through(g: Geometry) -> tuple[tuple[tuple[int, ...], ...], ...]:
    return tuple(tuple(line for line in g.lines if cell in line) for cell in range(g.cells))


@cache
def _line_table(g: Geometry) -> npt.NDArray[np.intp]:
    through = g.lines_through
    table = np.full((g.cells, max(map(len, through)), g.k), g.cells, dtype=np.intp)
    for cell, lines in enumerate(through):
        for j, line in enumerate(lines):
            table[cell, j] = line
    table.setflags(write=False)
    return table


@cache
def _symmetries(g: Geometry) -> tuple[tuple[int, ...], ...]:
    grid = np.arange(g.cells).reshape(g.rows, g.cols)
    images = [grid, np.fliplr(grid), np.flipud(grid), np.rot90(grid, 2)]
    if g.square:
        images += [grid.T, np.rot90(grid, 1), np.rot90(grid, 3), np.rot90(grid.T, 2)]
    perms = dict.fromkeys(tuple(int(v) for v in image.ravel()) for image in images)
    return tuple(perms)


@cache
def _weights(g: Geometry) -> npt.NDArray[np.int64]:
    w = 3 ** np.arange(g.cells, dtype=np.int64)
    w.setflags(write=False)
    return w
