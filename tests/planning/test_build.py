"""The MDP against a fixed opponent (``tttlab.planning.build``): sizes, stochastic rows, rewards
and the reduction by symmetry."""

from __future__ import annotations

import numpy as np
import pytest

from tests.planning.helpers import G, mdp_of
from tttlab.agents import make_agent
from tttlab.agents.base import policy_matrix
from tttlab.game import Player, state_space
from tttlab.planning import build_mdp, value_iteration


def test_state_counts_match_facts() -> None:
    x, o = mdp_of(Player.X), mdp_of(Player.O)
    assert (x.n_states, o.n_states) == (338 + 3, 289 + 3)
    assert x.symmetric
    assert x.n_actions == 9


@pytest.mark.parametrize("seat", list(Player))
@pytest.mark.parametrize("soft", [False, True])
def test_every_row_of_every_action_is_stochastic(seat: Player, soft: bool) -> None:
    mdp = mdp_of(seat, soft_constraint=soft)
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


def test_time_greedy_rewards() -> None:
    mdp = mdp_of(Player.X, rewards="time-greedy")
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
