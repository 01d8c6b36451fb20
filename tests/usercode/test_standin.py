""":mod:`tttlab.usercode.boxside.shapes.standin`: the course's Environment as the course means
it, with numpy or without (its agreement with a student's faithful Environment on every
board is tested through the agent's child: tests/usercode/test_td_agent.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tttlab.usercode.boxside.shapes.standin import Environment, Grid, text


def test_a_grid_reads_and_writes_both_ways() -> None:
    grid = Grid()
    grid[1, 2] = -1
    grid[2] = [1, 0, 0]
    assert grid[1][2] == grid[1, 2] == -1
    assert grid[2, 0] == 1


def test_a_cell_that_holds_neither_symbol_is_refused_by_the_state_and_shown_as_unknown() -> None:
    env = Environment(np)
    env.board[0, 2] = 5
    with pytest.raises(ValueError, match=r"board\[0, 2\] holds .*5\.0.*: not 0, x or o"):
        env.get_state()
    assert text(env) == "..?......"


def test_the_students_names_read_the_course_members_and_any_other_is_refused() -> None:
    env = Environment(None, {"tiles": "board", "X": "x"})
    assert env.tiles is env.board
    assert env.X == -1
    with pytest.raises(
        AttributeError, match=r"'Environment' has no attribute 'size' \(use --name\)"
    ):
        _ = env.size


def test_a_win_ends_the_game_and_rewards_its_side_alone(capsys: pytest.CaptureFixture[str]) -> None:
    env = Environment(np)
    for j in range(3):
        env.board[1, j] = env.o
    assert not env.ended
    assert env.game_over()
    assert (env.winner, env.ended) == (env.o, True)
    assert (env.reward(env.o), env.reward(env.x)) == (1, 0)
    env.draw_board()
    assert capsys.readouterr().out.splitlines()[1] == "o o o"
