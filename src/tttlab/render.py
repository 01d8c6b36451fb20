"""Text drawings of positions for terminals and logs (plain strings; the CLI adds colour).

>>> from tttlab.game import Position
>>> print(board_text(Position.from_string("X.O/.X./..O")))
 X | 2 | O
---+---+---
 4 | X | 6
---+---+---
 7 | 8 | O
"""

from __future__ import annotations

from collections.abc import Mapping

from tttlab.game import Position
from tttlab.game.draw import board_svg

__all__ = ["board_svg", "board_text", "values_text"]

_SYMBOL = {1: "X", 2: "O"}


def _grid(position: Position, labels: list[str]) -> str:
    g = position.geometry
    width = max(len(label) for label in labels)
    rule = "+".join("-" * (width + 2) for _ in range(g.cols))
    rows = []
    for r in range(g.rows):
        row = labels[r * g.cols : (r + 1) * g.cols]
        rows.append("|".join(f" {label:^{width}} " for label in row).rstrip())
    return f"\n{rule}\n".join(rows)


def board_text(position: Position, numbers: bool = True) -> str:
    """The board with X and O, and 1-based cell numbers (or blanks) in empty cells."""
    labels = [
        _SYMBOL[c] if c else (str(i + 1) if numbers else " ") for i, c in enumerate(position.cells)
    ]
    return _grid(position, labels)


def values_text(position: Position, values: Mapping[int, float]) -> str:
    """The board with a value printed in each empty cell that has one."""
    labels = [
        _SYMBOL[c] if c else (f"{values[i]:+.2f}" if i in values else "")
        for i, c in enumerate(position.cells)
    ]
    return _grid(position, labels)
