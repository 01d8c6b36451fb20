"""The one drawing of a board as SVG, shared by notebooks (``Position._repr_svg_``), the
web lab (``/api/svg`` and the Inspect section) and :mod:`tttlab.render`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tttlab.game.position import Position

__all__ = ["board_svg"]


def _winning_cells(position: Position) -> set[int]:
    cells = position.cells
    found: set[int] = set()
    for line in position.geometry.lines:
        first = cells[line[0]]
        if first and all(cells[i] == first for i in line):
            found.update(line)
    return found


def board_svg(
    position: Position,
    values: Mapping[int, float] | None = None,
    marks: Mapping[int, str] | None = None,
    cell: int = 48,
) -> str:
    """The board as a standalone SVG: the one drawing of a board, shared by notebooks
    (``_repr_svg_``) and the web page (``/api/svg``).

    ``values`` writes a number in empty cells (an agent's move values, or exact values);
    ``marks`` tags cells with a class (``"agent"``, ``"right"``, ``"loses"``) that colours
    them. The winning line, if any, is highlighted.

    >>> from tttlab.game import Position
    >>> svg = board_svg(Position.from_string("XXX/OO./..."))
    >>> svg.startswith("<svg") and svg.count('class="win"') == 3
    True
    """
    g = position.geometry
    width, height = g.cols * cell, g.rows * cell
    colours = {"agent": "#fde68a", "right": "#bbf7d0", "loses": "#fecaca", "win": "#c7d2fe"}
    winning = _winning_cells(position)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="ttt-board" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{position.to_string("/")}">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    for i, c in enumerate(position.cells):
        r, col = divmod(i, g.cols)
        x, y = col * cell, r * cell
        kind = "win" if i in winning else (marks or {}).get(i, "")
        fill = colours.get(kind, "#ffffff")
        parts.append(
            f'<rect class="{kind or "cell"}" data-cell="{i}" x="{x}" y="{y}" width="{cell}" '
            f'height="{cell}" fill="{fill}" stroke="#334155" stroke-width="1.5"/>'
        )
        cx, cy = x + cell / 2, y + cell / 2
        if c == 1:
            d = cell * 0.28
            parts.append(
                f'<path d="M{cx - d},{cy - d} L{cx + d},{cy + d} M{cx + d},{cy - d} '
                f'L{cx - d},{cy + d}" stroke="#1d4ed8" stroke-width="{cell / 12:.1f}" '
                'stroke-linecap="round"/>'
            )
        elif c == 2:
            parts.append(
                f'<circle cx="{cx}" cy="{cy}" r="{cell * 0.28:.1f}" fill="none" '
                f'stroke="#b91c1c" stroke-width="{cell / 12:.1f}"/>'
            )
        elif values is not None and i in values:
            parts.append(
                f'<text x="{cx}" y="{cy}" font-family="sans-serif" font-size="{cell / 4:.0f}" '
                f'text-anchor="middle" dominant-baseline="central" fill="#0f172a">'
                f"{values[i]:+.2f}</text>"
            )
    parts.append("</svg>")
    return "".join(parts)
