"""The truth of the course's TD(0) checks (:mod:`tttlab.usercode.exercises.td_agent_truth`):
the plans cover what the checks promise (every length of game, both seats, draws, ties), and
the backward sweep agrees with one written here from the course's update."""

from __future__ import annotations

import random

import pytest

from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises import EXERCISES
from tttlab.usercode.exercises import td_agent_truth as tt

SPEC = EXERCISES["td-agent"]


def test_the_histories_cover_every_length_both_seats_and_draws() -> None:
    truth = exercise_truth()
    cases = SPEC.cases(truth)["update"]
    kinds = {(len(c.arg.moves), truth.winner[truth.index(c.board)], c.arg.seat) for c in cases}
    assert kinds == {(n, w, s) for n, w in tt.KINDS for s in "XO"}
    assert len({c.arg.seed for c in cases}) == len(cases) == 60
    assert all(0.1 <= c.arg.alpha <= 0.9 for c in cases)
    assert [c.rank for c in cases] == sorted(c.rank for c in cases)


def test_the_game_seeds_end_in_wins_for_each_seat_and_draws() -> None:
    truth = exercise_truth()
    winners = []
    for case in SPEC.cases(truth)["play_game"]:
        board = "." * 9
        for k, cell in enumerate(tt.spy_game(case.arg)):
            board = board[:cell] + "XO"[k % 2] + board[cell + 1 :]
        assert truth.terminal[truth.index(board)]
        winners.append(truth.winner[truth.index(board)])
    assert sorted(winners) == sorted("XXXXOOO...")


def test_the_greedy_positions_include_ties_and_the_empty_board() -> None:
    truth = exercise_truth()
    cases = [c for c in SPEC.cases(truth)["take_action"] if c.arg.calls == 1]
    assert cases[0].board == "." * 9
    ties = [len(tt.greedy(c.board, c.arg)[0]) for c in cases]
    assert ties.count(1) == 240
    assert sorted(set(ties)) == [1, 2, 3]


def test_the_sweep_is_the_courses_update_run_backwards() -> None:
    """The course's update (seed 001), written here over a table drawn as the box draws it:
    the target starts at the reward and becomes each new value, latest state first."""
    truth = exercise_truth()
    for game, _ in tt.games(truth, each=2):
        r = random.Random(game.seed)
        V = [r.random() for _ in range(3**9)]
        board, history = "." * 9, []
        for k, cell in enumerate(game.moves):
            board = board[:cell] + "XO"[k % 2] + board[cell + 1 :]
            history.append(sum(3**i * ".XO".index(c) for i, c in enumerate(board)))
        reward = 1 if truth.winner[truth.index(board)] == game.seat else 0
        target = reward
        for prev in reversed(history):
            V[prev] = V[prev] + game.alpha * (target - V[prev])
            target = V[prev]
        after, got_reward = tt.sweep(game, truth)
        assert got_reward == reward
        assert [s for s, _ in after] == history[::-1]
        assert all(abs(V[s] - v) < 1e-12 for s, v in after)


def test_the_greedy_cells_are_read_at_the_tables_precision() -> None:
    """Two next states whose values differ below float32's precision are a tie for a
    float32 table, and not for a float64 one."""
    board = "." * 9
    first, second = tt.state_id("X" + "." * 8), tt.state_id(".X" + "." * 7)
    draw = tt.Draw(3, 0.0, 1, ((first, 0.999), (second, 0.999 + 1e-9)))
    assert tt.greedy(board, draw) == ([1], 0.999 + 1e-9)
    cells, top = tt.greedy(board, draw, "float32")
    assert cells == [0, 1]
    assert top == pytest.approx(0.999, rel=1e-7)
