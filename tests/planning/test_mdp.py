"""The MDP against a fixed opponent: sizes, stochastic rows, exact values, and cross-checks
against pymdptoolbox and a game-tree expectimax that shares no code with the MDP."""

from __future__ import annotations

import warnings
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from tttlab.agents import Agent, make_agent
from tttlab.agents.base import policy_matrix
from tttlab.evaluation import evaluate_seats
from tttlab.game import Geometry, Player, Position, state_space
from tttlab.planning import MDP, build_mdp, mdp_agent, policy_iteration, value_iteration

G = Geometry()


def _mdp(seat: Player, opponent: str = "random", **kw: object) -> MDP:
    space = state_space(G)
    table = policy_matrix(make_agent(opponent, G), space, seat.other)
    return build_mdp(space, seat, table, **kw)  # type: ignore[arg-type]


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


def test_state_counts_match_facts() -> None:
    x, o = _mdp(Player.X), _mdp(Player.O)
    assert (x.n_states, o.n_states) == (338 + 3, 289 + 3)
    assert x.symmetric
    assert x.n_actions == 9


@pytest.mark.parametrize("seat", list(Player))
@pytest.mark.parametrize("soft", [False, True])
def test_every_row_of_every_action_is_stochastic(seat: Player, soft: bool) -> None:
    mdp = _mdp(seat, soft_constraint=soft)
    for m in mdp.P:
        assert np.allclose(np.asarray(m.sum(axis=1)).ravel(), 1.0, atol=1e-12)
        assert (m.data >= 0).all()
    dense = mdp.dense()
    assert dense.shape == (mdp.n_states, mdp.n_states, 9)
    assert dense.dtype == np.float64
    assert np.allclose(dense.sum(axis=1), 1.0)
    draw, win, loss = mdp.terminal_states
    for t in (draw, win, loss):
        assert (dense[t, t, :] == 1).all()
        assert (mdp.R[t] == 0).all()
    illegal = ~mdp.legal[: mdp.n_states - 3]
    assert (mdp.R[: mdp.n_states - 3][illegal] == (-10.0 if soft else 0.0)).all()


@pytest.mark.parametrize(
    ("seat", "expected"), [(Player.X, Fraction(191, 192)), (Player.O, Fraction(874, 945))]
)
@pytest.mark.parametrize("method", ["vi", "pi"])
def test_exact_values_against_random(seat: Player, expected: Fraction, method: str) -> None:
    mdp = _mdp(seat)
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
    mdp = _mdp(seat, opponent)
    vi, pi = value_iteration(mdp, gamma), policy_iteration(mdp, gamma)
    assert np.allclose(vi.V, pi.V, atol=1e-10)
    tree = _expectimax(seat, make_agent(opponent, G), gamma)
    assert vi.value(mdp) == pytest.approx(tree, abs=1e-10)
    assert vi.residual < 1e-12
    assert pi.residual == 0.0


def test_perfect_opponent_cannot_be_beaten() -> None:
    for seat in Player:
        mdp = _mdp(seat, "perfect")
        assert value_iteration(mdp).value(mdp) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("seat", list(Player))
def test_cross_check_with_pymdptoolbox(seat: Player) -> None:
    mdptoolbox = pytest.importorskip("mdptoolbox.mdp")
    mdp = _mdp(seat, soft_constraint=True)
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


@pytest.mark.parametrize(
    ("seat", "win", "score"), [(Player.X, 191 / 192, 191 / 192), (Player.O, None, 874 / 945)]
)
def test_solved_agent_evaluates_to_the_mdp_value(
    seat: Player, win: float | None, score: float
) -> None:
    mdp = _mdp(seat)
    agent = mdp_agent(mdp, value_iteration(mdp))
    report = evaluate_seats(agent, G)[seat.name]
    assert report.win - report.loss == pytest.approx(score, abs=1e-12)
    if win is not None:
        assert report.win == pytest.approx(win, abs=1e-12)
        assert report.loss == 0.0


def test_o_policy_takes_risks_minimax_never_takes() -> None:
    mdp = _mdp(Player.O)
    agent = mdp_agent(mdp, value_iteration(mdp))
    report = evaluate_seats(agent, G)["O"]
    assert report.worst_case == -1  # it can be beaten by a player who knows it
    assert report.optimal_share < 1.0
    minimax = evaluate_seats(make_agent("minimax", G), G)["O"]
    assert minimax.worst_case == 0
    assert report.win - report.loss > minimax.win - minimax.loss


def test_time_greedy_rewards() -> None:
    mdp = _mdp(Player.X, rewards="time-greedy")
    solution = value_iteration(mdp)
    _, win, _ = mdp.terminal_states
    # Entering the win state pays 10; every other move costs 1.
    row = next(s for s in range(mdp.n_states - 3) if any(mdp.P[a][s, win] == 1.0 for a in range(9)))
    a = next(a for a in range(9) if mdp.P[a][row, win] == 1.0)
    assert mdp.R[row, a] == 10.0
    assert solution.value(mdp) < 10.0


def test_asymmetric_opponent_is_not_reduced(tmp_path: object) -> None:
    space = state_space(G)
    table = policy_matrix(make_agent("random", G), space, Player.O)
    # An opponent that always prefers the lowest free cell is not symmetric.
    lopsided = np.zeros_like(table)
    rows = np.flatnonzero(table.sum(axis=1) > 0)
    first = np.argmax(table[rows] > 0, axis=1)
    lopsided[rows, first] = 1.0
    mdp = build_mdp(space, Player.X, lopsided)
    assert not mdp.symmetric
    assert value_iteration(mdp).value(mdp) == pytest.approx(
        value_iteration(build_mdp(space, Player.X, lopsided, use_symmetry=False)).value(mdp)
    )
