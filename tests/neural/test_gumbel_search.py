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

from tests.conftest import open_positions
from tttlab.agents.gumbel import considered_visits, gumbel_search
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
    ("board", "simulations"),
    [("3x4k3", 1), ("4x4k4", 32), ("5x5k4", 64)],  # training searches 32
)
def test_the_numpy_search_is_mctxs_gumbel_search_without_noise(
    board: str, simulations: int
) -> None:
    geometry = Geometry.parse(board)
    boards = open_positions(geometry, 200, seed=simulations)
    numpy_net, jax_net = _exact_network(geometry.cells, seed=len(board) + simulations)
    env = make(geometry)
    out = jax.jit(
        lambda b: gumbel_policy(
            env, jax_net, env.from_boards(b), jax.random.PRNGKey(0), simulations, 0.0
        )
    )(jnp.asarray(boards))
    expected_visits = np.asarray(out.search_tree.summary().visit_counts).astype(int)
    found = gumbel_search(numpy_net, geometry, boards, simulations)
    np.testing.assert_array_equal(found.visits, expected_visits)
    np.testing.assert_array_equal(found.actions, np.asarray(out.action))
    # Not a test of nothing: the searches disagree with the raw policy somewhere.
    movers = np.where((boards != 0).sum(axis=1) % 2 == 0, 1, 2)
    raw = np.argmax(np.where(boards == 0, numpy_net(boards, movers)[0], -np.inf), axis=1)
    if simulations >= 8:
        assert (raw != found.actions).any()
