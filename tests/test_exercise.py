"""The exercise's function API, on the boards from its text and against the solver."""

from __future__ import annotations

import copy

import pytest

from tttlab import exercise as ex
from tttlab.game import Geometry, IllegalMoveError, Position, PositionError
from tttlab.solvers import solve_table

X, O, E = ex.X, ex.O, ex.EMPTY


def test_player() -> None:
    assert ex.player(ex.initial_state()) == X
    assert ex.player([[X, E, E], [E, E, E], [E, E, E]]) == O
    assert ex.player([[X, O, E], [E, E, E], [E, E, E]]) == X


def test_player_refuses_o_ahead() -> None:
    with pytest.raises(PositionError, match="X moves first"):
        ex.player([[O, E, E], [E, E, E], [E, E, E]])


def test_actions() -> None:
    board = [[X, O, E], [E, X, E], [E, E, O]]
    assert ex.actions(board) == {(0, 2), (1, 0), (1, 2), (2, 0), (2, 1)}
    assert ex.actions([[X, X, X], [O, O, E], [E, E, E]]) == set()


def test_result_returns_new_board_and_keeps_input() -> None:
    board = ex.initial_state()
    before = copy.deepcopy(board)
    after = ex.result(board, (1, 1))
    assert board == before
    assert after[1][1] == X


@pytest.mark.parametrize("action", [(0, 0), (3, 0), (-1, 2), (1,), "a", (1.0, 2)])
def test_result_raises_on_invalid_action(action: object) -> None:
    board = [[X, E, E], [E, E, E], [E, E, E]]
    with pytest.raises(IllegalMoveError):
        ex.result(board, action)  # type: ignore[arg-type]


def test_winner_terminal_utility() -> None:
    x_row = [[X, X, X], [O, O, E], [E, E, E]]
    o_diag = [[O, X, X], [X, O, E], [E, E, O]]
    full_draw = [[X, O, X], [X, O, O], [O, X, X]]
    ongoing = [[X, E, E], [E, O, E], [E, E, E]]
    assert (ex.winner(x_row), ex.terminal(x_row), ex.utility(x_row)) == (X, True, 1)
    assert (ex.winner(o_diag), ex.terminal(o_diag), ex.utility(o_diag)) == (O, True, -1)
    assert (ex.winner(full_draw), ex.terminal(full_draw), ex.utility(full_draw)) == (None, True, 0)
    assert (ex.winner(ongoing), ex.terminal(ongoing), ex.utility(ongoing)) == (None, False, 0)


def test_minimax_takes_win_and_blocks() -> None:
    assert ex.minimax([[X, X, E], [O, O, E], [E, E, E]]) == (0, 2)
    assert ex.minimax([[X, X, E], [E, O, E], [E, E, E]]) == (0, 2)
    assert ex.minimax([[X, X, X], [O, O, E], [E, E, E]]) is None


def test_minimax_moves_are_optimal_on_many_boards() -> None:
    table = solve_table(Geometry())
    space = table.space
    for i in range(0, space.size, 23):
        if space.terminal[i]:
            continue
        p = space.position(i)
        board = [[ex._SYMBOL[c] for c in p.cells[r * 3 : r * 3 + 3]] for r in range(3)]
        row, col = ex.minimax(board)  # type: ignore[misc]
        assert row * 3 + col in table.optimal_moves(p)


def test_bad_boards() -> None:
    with pytest.raises(PositionError):
        ex.player([[X, E], [E, E, E]])
    with pytest.raises(PositionError):
        ex.player([[1, E, E], [E, E, E], [E, E, E]])  # type: ignore[list-item]
    with pytest.raises(PositionError):
        ex.player([])
    assert Position.initial() is not None
