"""How the grader judges what a student's value or policy iteration returned
(:mod:`tttlab.usercode.exercises.mdp_iteration`): values and a policy told apart by what
they hold, in any order; the optimum of the MDP that R holds, a weak soft constraint
included; a function that takes no discount; the notes that name each adaptation."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tttlab.usercode.exercises.mdp_iteration import iteration_finding, iteration_notes, split
from tttlab.usercode.exercises.mdp_judge import decode
from tttlab.usercode.exercises.mdp_truth import (
    after,
    entry,
    expected_reward,
    mdp_truth,
    optimum,
    text_id,
)


def answer(
    scheme: str = "standard", gamma: float = 0.9, soft: float = -10.0
) -> tuple[list[Any], dict[str, float]]:
    """What the box reads of a right iteration over tttlab's own numbering of the states
    (the values, then the greedy policy, from ``f(P, R, gamma)``), and the values."""
    keys = list(mdp_truth().keys)
    stay = dict.fromkeys(keys, soft)
    best = optimum(stay, scheme, gamma)
    rows = [[0, 1, text_id(k)] for k in keys] + [[1, w, -1 - w] for w in range(3)]

    def q(k: str, a: int) -> float:
        if k[a] != ".":
            return soft + gamma * best[k]
        return sum(p * (entry(t, scheme) + gamma * best[t]) for t, p in after(k, a).items())

    policy = [float(max(range(9), key=lambda a: q(k, a))) for k in keys] + [0.0, 0.0, 0.0]
    rewards = [
        [soft if k[a] != "." else expected_reward(after(k, a), scheme) for a in range(9)]
        for k in keys
    ]
    values = [best[k] for k in keys] + [0.0, 0.0, 0.0]
    called = ["value_iteration(P, R, gamma)", True, [], "a tuple of 2"]
    return [rows, [[False, values], [True, policy]], rewards + [[0.0] * 9] * 3, called], best


RIGHT, _ = answer()


def changed(value: list[Any], where: tuple[int, ...], new: Any) -> list[Any]:
    """``value`` with the entry at ``where`` replaced."""
    found = copy.deepcopy(value)
    inner = found
    for i in where[:-1]:
        inner = inner[i]
    inner[where[-1]] = new
    return found


def test_a_right_answer_passes_and_each_wrong_entry_is_named() -> None:
    assert iteration_finding("value_iteration", 0.9, RIGHT) is None
    off = iteration_finding("value_iteration", 0.9, changed(RIGHT, (1, 0, 1, 5), 0.123))
    assert off is not None
    assert off.text.startswith("V[5] = 0.123 for state 5")
    taken = next(a for a in range(9) if mdp_truth().keys[1][a] != ".")
    illegal = iteration_finding("value_iteration", 0.9, changed(RIGHT, (1, 1, 1, 1), 1.0 * taken))
    assert illegal is not None
    assert illegal.text == f"policy[1] = {taken} for state 1 (.../.../.OX): that cell is taken"
    worse = RIGHT[1][1][1][0] + 1.0  # on the empty board: the next cell, not as good
    short = iteration_finding("value_iteration", 0.9, changed(RIGHT, (1, 1, 1, 0), worse))
    assert short is not None
    assert short.text.startswith(
        f"following the policy from state 0 (.../.../...) (it plays {worse:g})"
    )


def test_values_and_a_policy_are_told_apart_by_what_they_hold() -> None:
    rows, ((_, values), (_, policy)), _, _ = RIGHT
    decoded = [decode(r) for r in rows]
    floats = list(policy)
    illegal = [*floats[:1], float(decoded[1][1].index("X")), *floats[2:]]
    integers = [float(a % 9) for a in range(len(rows))]
    assert split([[False, floats], [False, values]], decoded) == (
        values,
        floats,
        ["policy", "values"],
    )
    assert split([[False, values], [False, floats]], decoded) == (
        values,
        floats,
        ["values", "policy"],
    )
    assert split([[False, floats]], decoded) == (None, floats, ["policy"])
    assert split([[False, illegal]], decoded)[:2] == (illegal, None)  # wrong values, not a policy
    assert split([[False, integers], [False, floats]], decoded)[2] == ["values", "policy"]
    assert split([[True, policy], [False, values[:5]]], decoded) == (None, policy, ["policy", ""])


def test_a_function_without_a_discount_is_judged_at_the_discount_its_values_are() -> None:
    undiscounted = changed(RIGHT, (3, 1), False)
    assert iteration_finding("value_iteration", 1.0, undiscounted) is None  # its values: 0.9
    assert iteration_notes(1.0, undiscounted) == [
        "value_iteration(P, R, gamma): it takes no discount: judged at gamma 0.9"
    ]
    halved = changed(undiscounted, (1, 0, 1), [v * 0.5 for v in RIGHT[1][0][1]])
    found = iteration_finding("value_iteration", 0.9, halved)
    assert found is not None
    assert found.text.endswith("(it takes no discount: judged undiscounted)")
    assert "at gamma 1," in found.text


def test_a_soft_constraint_too_weak_to_forbid_staying_put_is_judged_by_that_optimum() -> None:
    weak, best = answer("time-greedy", 0.9, -0.05)
    feasible = mdp_truth().values[("time-greedy", 0.9)]
    assert any(best[k] > feasible[k] + 0.01 for k in mdp_truth().keys)  # it stays put
    assert iteration_finding("value_iteration", 0.9, weak) is None
    (note,) = iteration_notes(0.9, weak)
    assert note.startswith("R's soft constraint is too weak to forbid staying put at gamma 0.9")
    as_if_strong = [feasible[k] for k in mdp_truth().keys] + [0.0, 0.0, 0.0]
    found = iteration_finding("value_iteration", 0.9, changed(weak, (1, 0, 1), as_if_strong))
    assert found is not None
    assert "too weak to forbid staying put" in found.text
    strong, _ = answer("time-greedy", 0.9, -1.0)
    assert iteration_notes(0.9, strong) == []


def test_a_positive_soft_constraint_at_gamma_one_has_no_optimum() -> None:
    board = decode(RIGHT[0][1])[1]
    cell = next(a for a in range(9) if board[a] != ".")
    rewarded = changed(RIGHT, (2, 1, cell), 0.5)
    found = iteration_finding("value_iteration", 1.0, rewarded)
    assert found is not None
    assert f"R[1, {cell}] = 0.5 rewards an infeasible move: at gamma 1" in found.text


@pytest.mark.parametrize(
    ("called", "parts", "note"),
    [
        (["f(P, R, gamma)", True, [], "a list of 2"], [0, 1], []),
        (
            ["f(P, R, gamma, V, n=5)", True, [["V", "zeros"]], "a tuple of 2"],
            [1, 0],
            [
                "f(P, R, gamma, V, n=5): V given zeros; returned the policy, then the values "
                "(a tuple of 2; told apart by what they hold)"
            ],
        ),
        (
            ["f(P, R, gamma)", True, [], "a dict (values)"],
            [0],
            ["f(P, R, gamma): returned the values (a dict (values); told apart by what they hold)"],
        ),
    ],
)
def test_the_note_names_how_it_was_called_and_read(
    called: list[Any], parts: list[int], note: list[str]
) -> None:
    value = [RIGHT[0], [RIGHT[1][i] for i in parts], RIGHT[2], called]
    assert iteration_notes(0.9, value) == note
    assert iteration_finding("f", 0.9, value) is None


def test_a_parameter_that_cannot_be_filled_is_named() -> None:
    value = ["unfilled", "value_iteration(P, R, gamma, seed)", "seed"]
    found = iteration_finding("value_iteration", 0.9, value)
    assert found is not None
    assert found.text.startswith(
        "value_iteration(P, R, gamma, seed): cannot tell what its parameter seed is"
    )
    assert iteration_notes(0.9, value) == []
