"""The one drawing of a board (:mod:`tttlab.game.draw`): a cell per square, the marks drawn,
the winning line highlighted, values written in empty cells only, and cells tagged."""

from __future__ import annotations

import re

from tttlab.game import Position
from tttlab.game.draw import board_svg


def squares(svg: str) -> dict[int, str]:
    """Each cell's class, by cell."""
    return {int(c): kind for kind, c in re.findall(r'<rect class="(\w+)" data-cell="(\d+)"', svg)}


def fills(svg: str) -> dict[int, str]:
    """Each cell's colour, by cell."""
    return {int(c): fill for c, fill in re.findall(r'data-cell="(\d+)"[^>]* fill="([^"]+)"', svg)}


def test_each_cell_is_drawn_with_its_mark_and_the_win_highlighted() -> None:
    svg = board_svg(Position.from_string("XXX/OO./..."), cell=10)
    assert svg.startswith("<svg")
    assert svg.endswith("</svg>")
    assert 'width="30" height="30"' in svg
    assert 'aria-label="XXX/OO./..."' in svg
    assert squares(svg) == {0: "win", 1: "win", 2: "win", **dict.fromkeys(range(3, 9), "cell")}
    assert fills(svg)[0] == "#c7d2fe"
    assert svg.count("<path") == 3  # the X's
    assert svg.count("<circle") == 2  # the O's


def test_a_board_not_square_is_drawn_row_by_row_and_marks_tag_cells() -> None:
    position = Position.from_string("X.../.O../....")  # 3 rows of 4, no line
    svg = board_svg(position, marks={1: "agent", 5: "right", 7: "loses"}, cell=10)
    assert 'width="40" height="30"' in svg
    assert squares(svg)[1] == "agent"
    assert squares(svg)[5] == "right"  # the O's cell keeps its tag under the mark
    assert squares(svg)[7] == "loses"
    assert [fills(svg)[c] for c in (1, 5, 7, 0)] == ["#fde68a", "#bbf7d0", "#fecaca", "#ffffff"]
    assert 'data-cell="5" x="10" y="10"' in svg  # row 1, column 1
    assert 'data-cell="7" x="30" y="10"' in svg
    assert "win" not in squares(svg).values()


def test_values_are_written_in_empty_cells_only() -> None:
    position = Position.from_string("X../.O./...")
    svg = board_svg(position, values={0: 0.5, 1: -1.0, 8: 0.25})
    assert re.findall(r">([+-]\d\.\d\d)</text>", svg) == ["-1.00", "+0.25"]  # not over the X
