"""Value and policy iteration (``tttlab.planning.iteration``): exact values, and cross-checks
against pymdptoolbox and a game-tree expectimax that shares no code with the MDP."""

from __future__ import annotations

import warnings
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from tests.planning.helpers import G, mdp_of
from tttlab.agents import Agent, make_agent
from tttlab.game import Player, Position
from tttlab.planning import policy_iteration, value_iteration


def _expectimax(seat: Player, opponent: Agent, gamma: float = 1.0) -> float:
    """Best expected reward over the game tree, by plain recursion on positions."""

    @cache
    def value(p: Position) -> float:
        if p.is_terminal:
            return 0.0
        if p.to_move is seat:
            return max(step(p.apply(m)) for m in p.legal_moves)
        return sum(pr * reply(p.apply(m)) for m, pr in opponent.move_probabilities(p).items())

    def step(after: Position) -> float:  # the seat has just moved
        if after.is_terminal:
            return 1.0 if after.winner is seat else 0.0
        return value(after)

    def reply(after: Position) -> float:  # the opponent has just moved
        if after.is_terminal:
            return -1.0 if after.winner is not None else 0.0
        return gamma * value(after)

    start = Position.initial(G)
    if seat is Player.X:
        return value(start)
    # The opponent's first move is the start distribution: no step, no discount.
    return sum(pr * value(start.apply(m)) for m, pr in opponent.move_probabilities(start).items())


@pytest.mark.parametrize(
    ("seat", "expected"), [(Player.X, Fraction(191, 192)), (Player.O, Fraction(874, 945))]
)
@pytest.mark.parametrize("method", ["vi", "pi"])
def test_exact_values_against_random(seat: Player, expected: Fraction, method: str) -> None:
    mdp = mdp_of(seat)
    solution = value_iteration(mdp) if method == "vi" else policy_iteration(mdp)
    assert solution.value(mdp) == pytest.approx(float(expected), abs=1e-12)
    assert solution.value(mdp) == pytest.approx(
        _expectimax(seat, make_agent("random", G)), abs=1e-12
    )


@pytest.mark.parametrize("seat", list(Player))
@pytest.mark.parametrize("gamma", [1.0, 0.9])
@pytest.mark.parametrize("opponent", ["random", "perfect"])
def test_value_and_policy_iteration_agree_with_expectimax(
    seat: Player, gamma: float, opponent: str
) -> None:
    mdp = mdp_of(seat, opponent)
    vi, pi = value_iteration(mdp, gamma), policy_iteration(mdp, gamma)
    assert np.allclose(vi.V, pi.V, atol=1e-10)
    tree = _expectimax(seat, make_agent(opponent, G), gamma)
    assert vi.value(mdp) == pytest.approx(tree, abs=1e-10)
    assert vi.residual < 1e-12
    assert pi.residual == 0.0


def test_perfect_opponent_cannot_be_beaten() -> None:
    for seat in Player:
        mdp = mdp_of(seat, "perfect")
        assert value_iteration(mdp).value(mdp) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("seat", list(Player))
def test_cross_check_with_pymdptoolbox(seat: Player) -> None:
    mdptoolbox = pytest.importorskip("mdptoolbox.mdp")
    mdp = mdp_of(seat, soft_constraint=True)
    P = np.transpose(mdp.dense(), (2, 0, 1))  # pymdptoolbox wants A × S × S
    gamma = 0.95
    ours = value_iteration(mdp, gamma)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vi = mdptoolbox.ValueIteration(P, mdp.R, gamma, epsilon=1e-12, max_iter=10_000)
        vi.run()
        pi = mdptoolbox.PolicyIteration(P, mdp.R, gamma)
        pi.run()
    assert np.allclose(np.array(pi.V), ours.V, atol=1e-9)
    assert np.allclose(np.array(vi.V), ours.V, atol=1e-6)
    # Their greedy actions are optimal for us too (ties may differ).
    decision = mdp.legal.any(axis=1)
    chosen = ours.Q[np.arange(mdp.n_states), np.array(pi.policy)]
    assert np.allclose(chosen[decision], ours.V[decision], atol=1e-9)
