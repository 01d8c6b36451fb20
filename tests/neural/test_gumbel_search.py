"""The numpy search that network agents play with (``az.npz:N``) is the search that trains
them: mctx's Gumbel MuZero with its noise off. Same positions, same network: the same
visit counts and the same move, position by position."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.conftest import movers_of, open_positions
from tttlab.agents.gumbel import CONSIDERED, considered_visits, gumbel_search, play_considered
from tttlab.agents.network import encode
from tttlab.game import Geometry
from tttlab.neural.alphazero import gumbel_policy
from tttlab.vector import make


def _exact_network(
    cells: int, seed: int
) -> tuple[Callable[..., Any], Callable[[jax.Array], tuple[jax.Array, jax.Array]]]:
    """A linear 'network' whose weights are multiples of 1/8 and 1/64, so that numpy and
    XLA compute its outputs exactly, bit for bit (the search is what is compared)."""
    rng = np.random.default_rng(seed)
    w_logits = (rng.integers(-16, 17, (2 * cells, cells)) / 8).astype(np.float32)
    w_value = (rng.integers(-16, 17, 2 * cells) / 64).astype(np.float32)

    def numpy_net(boards: np.ndarray, movers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = encode(boards, movers)
        return x @ w_logits, np.clip(x @ w_value, -1.0, 1.0)

    def jax_net(observation: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = observation.reshape(-1).astype(jnp.float32)
        return x @ w_logits, jnp.clip(x @ w_value, -1.0, 1.0)

    return numpy_net, jax_net


def test_the_considered_visits_are_mctxs() -> None:
    from mctx._src import seq_halving

    for m in range(0, 26):
        for n in (1, 2, 3, 7, 16, 32, 64, 100):
            assert considered_visits(m, n) == seq_halving.get_sequence_of_considered_visits(m, n)


@pytest.mark.parametrize(
    ("board", "simulations", "rescale", "considered"),
    [
        ("3x4k3", 1, True, CONSIDERED),
        ("4x4k4", 32, True, CONSIDERED),  # training: 32 simulations, stretched, 16 moves
        ("5x5k4", 64, True, CONSIDERED),
        ("4x4k4", 8, False, play_considered(8)),  # play time (4 moves)
        ("4x4k4", 4, False, play_considered(4)),  # (2 moves)
    ],
)
def test_the_numpy_search_is_mctxs_gumbel_search_without_noise(
    board: str, simulations: int, rescale: bool, considered: int
) -> None:
    geometry = Geometry.parse(board)
    boards = open_positions(geometry, 200, seed=simulations)
    numpy_net, jax_net = _exact_network(geometry.cells, seed=len(board) + simulations)
    env = make(geometry)
    out = jax.jit(
        lambda b: gumbel_policy(
            env,
            jax_net,
            env.from_boards(b),
            jax.random.PRNGKey(0),
            simulations,
            0.0,
            rescale,
            considered,
        )
    )(jnp.asarray(boards))
    expected_visits = np.asarray(out.search_tree.summary().visit_counts).astype(int)
    found = gumbel_search(numpy_net, geometry, boards, simulations, considered, rescale)
    np.testing.assert_array_equal(found.visits, expected_visits)
    np.testing.assert_array_equal(found.actions, np.asarray(out.action))
    # Not a test of nothing: the searches disagree with the raw policy somewhere.
    movers = movers_of(boards)
    raw = np.argmax(np.where(boards == 0, numpy_net(boards, movers)[0], -np.inf), axis=1)
    if simulations >= 8:
        assert (raw != found.actions).any()


def test_play_time_search_does_not_let_a_tiny_value_difference_override_the_policy() -> None:
    """Two moves: the policy's favourite (prior 0.81) and another (0.07) whose position the
    value head rates 0.001 higher. Stretched to [0, 1] (training's transform), that
    difference outweighs the prior and 2 simulations play the other move; in the game's own
    [−1, 1] (play time) the favourite stays. (A 4×4 k=4 network did this and lost.)"""
    geometry = Geometry.parse("3x3k3")
    root = np.zeros((1, 9), dtype=np.int8)  # X to move; the policy wants 6, or else 7

    def net(boards: np.ndarray, movers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits = np.full((len(boards), 9), -20.0, np.float32)
        logits[:, 6], logits[:, 7] = np.log(0.81), np.log(0.07)
        # each position's value for its mover: +0.002 for X at the root, and O's after 7 is
        # 0.001 lower than after 6
        after = np.where(boards[:, 7] == 1, -0.003, -0.002)
        value = np.where((boards != 0).any(axis=1), after, 0.002).astype(np.float32)
        return logits, value

    stretched = gumbel_search(net, geometry, root, 2, rescale=True)
    kept = gumbel_search(net, geometry, root, 2, rescale=False)
    assert stretched.actions.tolist() == [7]
    assert kept.actions.tolist() == [6]
    from tttlab.agents.network import PLAY_RESCALE

    assert PLAY_RESCALE is False  # what az.npz:N plays with
