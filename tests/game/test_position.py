"""Positions (:mod:`tttlab.game.position`): the rules, notation, ids and errors of the game
core (the boards themselves: tests/game/test_geometry.py)."""

from __future__ import annotations

import pytest

from tttlab.game import (
    Geometry,
    IllegalMoveError,
    Outcome,
    Player,
    Position,
    PositionError,
    cells_from_id,
)


def test_initial_position() -> None:
    p = Position.initial()
    assert p.to_move is Player.X
    assert p.legal_moves == tuple(range(9))
    assert p.id == 0
    assert not p.is_terminal
    assert p.outcome is None
    assert p.to_string() == "........."


def test_apply_returns_new_position_and_keeps_old() -> None:
    p = Position.initial()
    q = p.apply(4)
    assert p.cells == (0,) * 9
    assert q.cells[4] == 1
    assert q.to_move is Player.O
    assert q.id == 3**4


def test_seed_id_convention() -> None:
    # cell i weighs 3**i; X = 1, O = 2
    p = Position.from_string("XO......X")
    assert p.id == 1 * 3**0 + 2 * 3**1 + 1 * 3**8


def test_string_with_and_without_slashes() -> None:
    a = Position.from_string("X.O/.X./..O")
    b = Position.from_string("X.O.X...O")
    assert a == b
    assert a.to_string("/") == "X.O/.X./..O"
    assert str(a) == "X.O/.X./..O"


def test_string_infers_geometry_from_rows() -> None:
    p = Position.from_string("X.../.O../..../....")
    assert p.geometry == Geometry(4, 4, 4)


def test_winner_and_utility() -> None:
    x_won = Position.from_string("XXX/OO./...")
    assert x_won.winner is Player.X
    assert x_won.is_terminal
    assert x_won.utility == 1
    assert x_won.outcome == Outcome(Player.X, "line")
    o_won = Position.from_string("XX./OOO/X..")
    assert o_won.utility == -1
    draw = Position.from_string("XOX/XOO/OXX")
    assert draw.outcome == Outcome(None, "full board")
    assert draw.utility == 0
    assert str(draw.outcome) == "draw"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("X.O", "must have 9 cells"),
        ("X.O/.X./..O.", "different lengths"),
        ("X.Z/.X./..O", "only contain X, O and '.'"),
        ("XXX/.../...", "X has 3 marks and O has 0"),
        ("OO./.../...", "X has 0 marks and O has 2"),
        ("XXX/OOO/...", "both X and O have a line"),
        ("XXX/OO./O..", "play went on after X won"),
        ("OOO/XX./XX.", "play went on after O won"),
    ],
)
def test_parser_errors(text: str, fragment: str) -> None:
    with pytest.raises(PositionError, match=fragment):
        Position.from_string(text)


def test_parser_refuses_non_string() -> None:
    with pytest.raises(PositionError, match="must be a string"):
        Position.from_string(123)  # type: ignore[arg-type]


def test_two_separate_lines_are_impossible() -> None:
    with pytest.raises(PositionError, match="no single last move"):
        Position.from_string("XXX./O.O./XXX./OO.O", Geometry(4, 4, 3))


def test_double_line_through_last_move_is_legal() -> None:
    assert Position.from_string("XXX/OXO/XOO").winner is Player.X
    # X's last move at the corner completes a row and a column at once.
    p = Position.from_string("XXX/XOO/XOO")
    assert p.winner is Player.X


@pytest.mark.parametrize(
    ("setup", "move", "fragment"),
    [
        ("X........", 0, "occupied by X"),
        (".........", 9, "out of range"),
        (".........", -1, "out of range"),
        ("XXX/OO./...", 8, "already over"),
    ],
)
def test_illegal_moves(setup: str, move: int, fragment: str) -> None:
    p = Position.from_string(setup)
    with pytest.raises(IllegalMoveError, match=fragment) as info:
        p.apply(move)
    assert isinstance(info.value, ValueError)
    assert info.value.move == move


def test_non_integer_move_refused() -> None:
    with pytest.raises(IllegalMoveError, match="integer"):
        Position.initial().apply("4")  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="integer"):
        Position.initial().apply(True)


def test_from_id_validates() -> None:
    with pytest.raises(PositionError, match="outside"):
        Position.from_id(3**9)
    with pytest.raises(PositionError, match="outside"):
        Position.from_id(-1)
    with pytest.raises(PositionError, match="X has 2 marks"):
        Position.from_id(1 + 3)  # two X, no O
    with pytest.raises(PositionError, match="integer"):
        cells_from_id(1.5)  # type: ignore[arg-type]


def test_player() -> None:
    assert Player.X.other is Player.O
    assert Player.O.sign == -1
    assert Player.parse("o") is Player.O
    with pytest.raises(ValueError, match="X or O"):
        Player.parse("Z")
