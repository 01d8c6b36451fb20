"""How the grader judges what the box read of a student's MDP
(:mod:`tttlab.usercode.exercises.mdp_judge`): the sizes, the numbers in words, and what is
wrong with a state, one line each."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from tttlab.usercode.exercises.mdp_judge import (
    count_finding,
    fraction,
    scheme_of,
    state_finding,
)
from tttlab.usercode.exercises.mdp_truth import (
    ENDS,
    after,
    canonical,
    entry,
    mdp_truth,
    text_id,
)


def test_the_sizes_and_words() -> None:
    assert count_finding([341, 338, 3, [341, 341, 9], [341, 9]]) is None
    found = count_finding([340, 337, 3, [340, 340, 9], [340, 9]])
    assert found is not None
    assert "expected 341 (338 + draw, win, loss)" in found.text
    found = count_finding([341, 338, 3, [341, 9, 341], [341, 9]])
    assert found is not None
    assert found.text == "P is 341 x 9 x 341, expected 341 x 341 x 9"
    assert fraction(1 / 7) == "1/7 (0.142857)"
    assert fraction(0.3) == "3/10 (0.3)"
    assert fraction(1.0) == "1"
    assert scheme_of(10.0) == "time-greedy"
    assert scheme_of(1.0) == scheme_of(None) == "standard"


def state_answer(s: int, board: str) -> list[Any]:
    """What the box reads for state ``s`` of a right MDP numbered as tttlab numbers it:
    the state's row, no id_state_lkt, each action's entries, the targets' rows."""
    truth = mdp_truth()
    number = {k: i for i, k in enumerate([*truth.keys, *ENDS])}
    rows = {i: [0, 1, text_id(k)] for i, k in enumerate(truth.keys)}
    rows.update({truth.decisions + w: [1, w, -1 - w] for w in range(3)})
    actions = []
    for a in range(9):
        found = after(board, a) if board[a] == "." else {"": 1.0}
        entries: list[list[Any]] = sorted([number.get(k, s), p] for k, p in found.items())
        actions.append([entries, len(entries), sum(p for _, p in entries)])
    targets = sorted({t for entries, _, _ in actions for t, _ in entries})
    return [[0, 1, text_id(board)], None, actions, [[t, rows[t]] for t in targets]]


def test_what_is_wrong_with_a_state_in_words() -> None:
    start = mdp_truth().keys.index(canonical("." * 9))
    assert start == 0
    board = "X...O...."
    s = mdp_truth().keys.index(canonical(board))
    right = state_answer(s, board)
    assert state_finding("P", s, right) is None
    assert state_finding("R", s, [*right, [0.0] * 9]) is not None  # no soft constraint

    def wrong(change: Callable[[list[Any]], None]) -> str:
        answer = copy.deepcopy(right)
        change(answer)
        found = state_finding("P", s, answer)
        assert found is not None
        assert found.board in ("", board)
        return found.text

    def no_row(answer: list[Any]) -> None:
        answer[3][0][1] = None

    def bad_type(answer: list[Any]) -> None:
        answer[0][0] = 2

    def o_to_move(answer: list[Any]) -> None:
        answer[0][2] = text_id("X........")

    def elsewhere(answer: list[Any]) -> None:
        answer[1] = s + 1

    def negative(answer: list[Any]) -> None:
        answer[2][1][0][0][1] = -0.5

    def too_many(answer: list[Any]) -> None:
        answer[2][1][1] = 40

    assert "has no row in state_id_lkt" in wrong(no_row)
    assert "its type must be 0 (X to move) or 1 (terminal)" in wrong(bad_type)
    assert "is not a position where X is to move" in wrong(o_to_move)
    assert f"id_state_lkt gives state {s + 1} for board" in wrong(elsewhere)
    assert "is negative" in wrong(negative)
    assert "40 nonzero entries" in wrong(too_many)


def test_any_negative_reward_is_a_soft_constraint_and_no_other_is() -> None:
    """The text's words: "all infeasible (state, action) pairs have a negative reward, e.g.
    -1" (its code: -10); not the same one everywhere, even in one state."""
    board = "X...O...."
    s = mdp_truth().keys.index(canonical(board))
    right = state_answer(s, board)
    rewards = [
        sum(p * entry(k, "standard") for k, p in after(board, a).items()) if board[a] == "." else c
        for a, c in enumerate([-1.0, 0.0, 0.0, 0.0, -10.0, 0.0, 0.0, 0.0, 0.0])
    ]
    for soft in ([-1.0, -10.0], [-0.001, -0.001], [-250.0, -1.0]):
        assert (
            state_finding("R", s, [*right, [soft[0], *rewards[1:4], soft[1], *rewards[5:]]]) is None
        )
    for wrong in (0.0, 1.0, float("nan")):
        found = state_finding("R", s, [*right, [wrong, *rewards[1:]]])
        assert found is not None
        assert found.text.endswith(
            "expected a negative reward (the soft constraint: cell 0 is taken)"
        )
