""":mod:`tttlab.usercode.boxside.shapes.spies`: the recording agents ``play_game`` is checked
with play legal random moves, log every call made on them, and stop a loop that makes more
calls than a game needs; :func:`spy_game` is the game they play when it is played right."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tttlab.usercode.boxside.shapes.spies import EVENTS, Enough, Spy, pick, spy_game
from tttlab.usercode.boxside.shapes.standin import Environment, text
from tttlab.usercode.cases import exercise_truth


def test_a_spy_logs_each_call_with_the_board_then() -> None:
    env, log = Environment(np), []
    spy = Spy(1, env.x, 3, env, log)
    spy.take_action(env)
    ((kind, who, before, cell),) = log
    assert (kind, who, before) == ("a", 1, "." * 9)
    assert text(env)[cell] == "X"
    spy.update_state_histories(np.int64(7))  # the notebook's name; numpy's integers count
    spy.update_state_history("seven")
    spy.update(Environment(np))
    assert log[1][3] == 7
    assert log[2][3] == ["g", "'seven'"]
    assert log[3] == ["u", 1, "." * 9, 0]  # not the game's env


def test_a_loop_that_calls_too_often_is_stopped() -> None:
    env, log = Environment(np), []
    spy = Spy(2, env.o, 1, env, log)
    for _ in range(EVENTS):
        spy.update(env)
    with pytest.raises(Enough):
        spy.update(env)
    assert len(log) == EVENTS


def test_the_played_game_is_legal_and_finished() -> None:
    truth = exercise_truth()
    for seed in range(40):
        board = "." * 9
        for k, cell in enumerate(spy_game(seed)):
            assert board[cell] == "."
            board = board[:cell] + "XO"[k % 2] + board[cell + 1 :]
            assert k == 0 or not truth.terminal[truth.index(board[:cell] + "." + board[cell + 1 :])]
        assert truth.terminal[truth.index(board)]
    assert pick(random.Random(0), "XOXOXOXOX") == -1


def test_what_play_game_raises_on_a_spy_names_the_recording_agent_never_spy() -> None:
    env = Environment(np)
    spy = Spy(1, env.x, 0, env, [])
    with pytest.raises(AttributeError) as missing:
        spy.verbose  # noqa: B018  # the course's own agent has it; the recording agent not
    assert str(missing.value) == (
        "'the recording agent tttlab passes as p1/p2' object has no attribute 'verbose'"
    )
    with pytest.raises(TypeError) as called:
        spy.take_action(env, True)  # type: ignore[call-arg]
    assert str(called.value).startswith("p1/p2.take_action() takes 2 positional arguments")
    assert "Spy" not in str(missing.value) + str(called.value)
