"""How the box calls a student's value or policy iteration and reads what it returned
(:mod:`tttlab.usercode.boxside.shapes.mdp_call`): each parameter filled by what its name
says or its place, defaults kept, and the vectors found in any container, in order."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tttlab.usercode.boxside.shapes.mdp_call import (
    SWEEPS,
    TOLERANCE,
    arguments,
    fresh,
    kind_of,
    parts,
)

#: What each kind of parameter is given here (a word, to see where it went).
GIVEN: dict[str, Any] = {
    "P": "P",
    "R": "R",
    "gamma": 0.9,
    "values": "zeros",
    "policy": "feasible",
    "tol": TOLERANCE,
    "sweeps": SWEEPS,
    "states": 341,
    "actions": 9,
}


def called(function: Any) -> tuple[list[Any], dict[str, Any], str, bool, list[list[str]], str]:
    call = arguments(function, function.__name__, {k: (lambda v=v: v) for k, v in GIVEN.items()})
    return call.args, call.kwargs, call.signature, call.discounted, call.filled, call.unfilled


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("gamma", "gamma"),
        ("discount_factor", "gamma"),
        ("v_init", "values"),
        ("V0", "values"),
        ("initial_values", "values"),
        ("pi_init", "policy"),
        ("policy", "policy"),
        ("tol", "tol"),
        ("theta", "tol"),
        ("epsilon", "tol"),
        ("n_sweeps", "sweeps"),  # "eps" is in "sweeps": the sweeps are asked first
        ("max_iter", "sweeps"),
        ("n_states", "states"),
        ("num_actions", "actions"),
        ("transitions", "P"),
        ("rewards", "R"),
        ("verbose", None),
        ("T", None),  # a transition matrix or a horizon: its place tells
    ],
)
def test_a_parameter_is_known_by_its_name(name: str, kind: str | None) -> None:
    assert kind_of(name) == kind


def test_the_texts_authors_signatures_get_zeros_and_a_feasible_policy() -> None:
    def value_iteration(P, R, gamma, v_init, tol=1.0e-6):
        return None

    def policy_iteration(P, R, gamma, v_init, pi_init, tol=1.0e-6):
        return None

    assert called(value_iteration) == (
        ["P", "R", 0.9, "zeros"],
        {},
        "value_iteration(P, R, gamma, v_init, tol=1e-06)",
        True,
        [["v_init", "zeros"]],
        "",
    )
    args, kwargs, _, _, filled, _ = called(policy_iteration)
    assert (args, kwargs) == (["P", "R", 0.9, "zeros", "feasible"], {})
    assert filled == [["v_init", "zeros"], ["pi_init", "a feasible policy"]]


def test_defaults_are_kept_but_the_discounts_and_places_tell() -> None:
    def keyword_only(P, R, *, discount=0.5, theta=1e-10):
        return None

    def verbose_first(P, R, verbose=False, gamma=0.99):
        return None

    def undiscounted(P, R, v0, epsilon=1e-9):
        return None

    def by_place(transition_matrix, reward_matrix, g, sweeps):
        return None

    def any_third(mdp_p, mdp_r, lam=0.9):
        return None

    assert called(keyword_only)[:4] == (
        ["P", "R"],
        {"discount": 0.9},
        "keyword_only(P, R, *, discount=0.5, theta=1e-10)",
        True,
    )
    assert called(verbose_first)[:2] == (["P", "R"], {"gamma": 0.9})
    assert called(undiscounted)[:2] == (["P", "R", "zeros"], {})
    assert not called(undiscounted)[3]
    assert called(by_place)[0] == ["P", "R", 0.9, SWEEPS]
    assert called(any_third)[:2] == (["P", "R", 0.9], {})


def test_what_cannot_be_filled_is_named_and_a_bare_call_is_the_plain_one() -> None:
    def mystery(P, R, gamma, V, pi, seed):
        return None

    def starred(*args):
        return None

    def positional_only(P, R, gamma, /):
        return None

    assert called(mystery)[5] == "seed"
    assert called(starred)[:4] == (["P", "R", 0.9], {}, "starred(P, R, gamma)", True)
    assert called(positional_only)[:3] == (
        ["P", "R", 0.9],
        {},
        "positional_only(P, R, gamma, /)",
    )
    assert called(max)[0] == ["P", "R", 0.9]  # no signature to read


class Solution:
    def __init__(self) -> None:
        self.values = np.array([0.5, 0.25])
        self.policy = np.array([1, 2])


VALUES, CELLS = [False, [0.5, 0.25]], [True, [1, 2]]


@pytest.mark.parametrize(
    ("result", "found", "form"),
    [
        ((np.array([1, 2]), np.array([0.5, 0.25])), [CELLS, VALUES], "a tuple of 2"),
        ([[0.5, 0.25], [1, 2]], [VALUES, CELLS], "a list of 2"),
        (np.array([[0.5, 0.25], [1.0, 2.0]]), [VALUES, [False, [1.0, 2.0]]], "a list of 2"),
        ({"V": [0.5, 0.25], "pi": {0: 1, 1: 2}}, [VALUES, CELLS], "a dict (V, pi)"),
        ({0: 0.5, 1: 0.25}, [VALUES], "one vector"),
        (Solution(), [VALUES, CELLS], "an object's attributes"),
        (np.zeros((2, 1)), [[False, [0.0, 0.0]]], "one vector"),
        ((np.zeros((2, 9)), [True, False]), [], "a tuple of 2"),  # a Q table, flags
        (None, [], "one vector"),
    ],
)
def test_the_vectors_in_what_came_back_in_order(result: Any, found: Any, form: str) -> None:
    assert parts(result) == (found, form)


def test_fresh_copies_leave_the_students_tables_as_they_were() -> None:
    rng = np.random.default_rng(4)
    P = rng.random((3, 3, 2))
    nested = P.tolist()
    arrays = list(P)
    other = (P, {"R": [1.0]})
    fresh(P)[0, 0, 0] = 9.0
    fresh(nested)[0][0][0] = 9.0
    fresh(arrays)[0][0, 0] = 9.0
    fresh(other)[1]["R"][0] = 9.0
    assert P[0, 0, 0] != 9.0
    assert nested[0][0][0] != 9.0
    assert other[1]["R"] == [1.0]
