"""Drawing positions as RGB arrays with numpy alone (no pygame, no image files)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tttlab.game import Position
from tttlab.game.observation import planes_of
from tttlab.render import board_text

__all__ = ["planes", "render", "rgb_array"]

_BACKGROUND = (250, 250, 245)
_GRID = (60, 60, 60)
_X = (200, 40, 40)
_O = (30, 80, 200)


def rgb_array(position: Position, cell: int = 64) -> npt.NDArray[np.uint8]:
    """An (rows·cell) × (cols·cell) × 3 uint8 image of the board."""
    g = position.geometry
    h, w = g.rows * cell, g.cols * cell
    image = np.empty((h, w, 3), dtype=np.uint8)
    image[:] = _BACKGROUND
    line = max(1, cell // 24)
    for r in range(1, g.rows):
        image[r * cell - line : r * cell + line, :] = _GRID
    for c in range(1, g.cols):
        image[:, c * cell - line : c * cell + line] = _GRID
    yy, xx = np.mgrid[0:cell, 0:cell].astype(np.float64)
    centre = (cell - 1) / 2
    thick = cell / 12
    margin = cell * 0.2
    inside = (xx > margin) & (xx < cell - margin) & (yy > margin) & (yy < cell - margin)
    cross = inside & ((np.abs(xx - yy) < thick) | (np.abs(xx + yy - (cell - 1)) < thick))
    radius = np.hypot(xx - centre, yy - centre)
    ring = np.abs(radius - (cell / 2 - margin)) < thick / 1.2
    for i, mark in enumerate(position.cells):
        if not mark:
            continue
        r, c = g.row_col(i)
        tile = image[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell]
        tile[cross if mark == 1 else ring] = _X if mark == 1 else _O
    return image


def planes(position: Position, side: int) -> npt.NDArray[np.int8]:
    """The (rows, cols, 2) int8 observation of ``side`` (1 X, 2 O): own marks, opponent's."""
    return planes_of(position.cells, side, position.geometry)


def render(position: Position, mode: str | None) -> str | npt.NDArray[np.uint8] | None:
    """What both adapters' ``render`` return: text for "ansi", an image for "rgb_array"."""
    if mode == "ansi":
        return board_text(position, numbers=False) + "\n"
    if mode == "rgb_array":
        return rgb_array(position)
    return None
