"""The grader's exact MDP of the text (:mod:`tttlab.usercode.exercises.mdp_truth`): its
distributions against a uniformly random O agree with tttlab's own MDP, its values are
optimal, and a policy is evaluated exactly."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from tttlab.game import Player, state_space
from tttlab.planning import build_mdp
from tttlab.usercode.exercises.mdp_truth import (
    ENDS,
    G3,
    after,
    canonical,
    evaluate,
    mdp_truth,
    optimum,
    staying,
)


def test_the_exact_distributions_agree_with_tttlabs_mdp() -> None:
    space = state_space(G3)
    opponent = np.zeros((space.size, 9))
    rows = space.decisions(2)
    legal = space.next[rows] >= 0
    opponent[rows] = legal / legal.sum(axis=1, keepdims=True)
    mdp = build_mdp(space, Player.X, opponent)
    boards = ["".join(".XO"[c] for c in space.boards[i]) for i in mdp.positions.tolist()]
    keys = [canonical(b) for b in boards] + list(ENDS)
    assert keys[:-3] == list(mdp_truth().keys)
    assert mdp.n_states == mdp_truth().states == 341
    for s, board in enumerate(boards):
        for a in range(9):
            if board[a] != ".":
                continue
            row = mdp.P[a].getrow(s)
            theirs: dict[str, float] = {}
            for t, p in zip(row.indices.tolist(), row.data.tolist(), strict=True):
                theirs[keys[t]] = theirs.get(keys[t], 0.0) + p
            ours = after(board, a)
            assert ours.keys() == theirs.keys()
            assert all(abs(ours[k] - theirs[k]) < 1e-12 for k in ours)


#: The reward of entering each kind of state, per scheme (the text's), restated here.
REWARDS = {
    "standard": {"win": 1.0, "loss": -1.0, "draw": 0.0, "state": 0.0},
    "time-greedy": {"win": 10.0, "loss": -1.0, "draw": -1.0, "state": -1.0},
}


def test_the_exact_values_and_a_policy_evaluated() -> None:
    truth = mdp_truth()
    start = canonical("." * 9)
    standard = truth.values[("standard", 1.0)]
    assert Fraction(standard[start]).limit_denominator(1000) == Fraction(191, 192)
    for gamma in (0.9, 1.0):
        for scheme, rewards in REWARDS.items():
            best = truth.values[(scheme, gamma)]
            # the greedy move from the exact values, in every state: optimal everywhere
            moves = {}
            for k in truth.keys:
                q = {
                    a: sum(
                        p * (rewards.get(t, rewards["state"])) + p * gamma * best[t]
                        for t, p in after(k, a).items()
                    )
                    for a in range(9)
                    if k[a] == "."
                }
                moves[k] = (k, max(q, key=q.__getitem__))
            worth = evaluate(moves, scheme, gamma)
            assert all(abs(worth[k] - best[k]) < 1e-9 for k in truth.keys)
    first_cell = {k: (k, k.index(".")) for k in truth.keys}
    assert evaluate(first_cell, "standard", 1.0)[start] < standard[start] - 0.01


def test_backward_induction_agrees_with_policy_iteration_and_staying_put_can_win() -> None:
    """:func:`optimum` with no state that may stay put finds the values policy iteration
    found; a soft constraint too weak at gamma 0.9 makes staying put optimal somewhere, and
    a policy that stays put there is worth just that."""
    truth = mdp_truth()
    for (scheme, gamma), best in truth.values.items():
        found = optimum({}, scheme, gamma)
        assert all(abs(found[k] - best[k]) < 1e-12 for k in best)
    assert staying(-1.0, 0.5) == -2.0
    assert (staying(-1.0, 1.0), staying(0.0, 1.0), staying(1.0, 1.0)) == (-math.inf, 0.0, math.inf)
    weak = dict.fromkeys(truth.keys, -0.05)
    best = truth.values[("standard", 0.9)]
    stays = optimum(weak, "standard", 0.9)
    put = [k for k in truth.keys if stays[k] > best[k] + 1e-9]
    assert put
    assert all(abs(stays[k] - max(best[k], -0.5)) < 1e-9 for k in put)
    assert optimum(dict.fromkeys(truth.keys, -1.0), "standard", 0.9) == optimum({}, "standard", 0.9)
    k = put[0]
    moves = {key: (key, key.index(".")) for key in truth.keys}
    moves[k] = (k, k.index("X"))
    assert abs(evaluate(moves, "standard", 0.9, {k: -0.05})[k] - -0.5) < 1e-12
