"""AlphaZero on the batched environment: small budgets, exact judgements."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from tests.neural.conftest import assert_resume_equals_whole
from tttlab.agents.network import forward
from tttlab.game import Geometry, Player
from tttlab.neural.alphazero import AlphaZeroConfig, AlphaZeroTrainer
from tttlab.neural.network import from_params, init_network, to_params


def _trainer(seed: int) -> AlphaZeroTrainer:
    """Two iterations of the 3×3 run that tests/cli/test_alphazero.py trains whole (1,024
    episodes in batches of 128) and judges exactly (X beats random at least 90% of the
    time): the same shapes, so JAX's persistent compilation cache serves both."""
    return AlphaZeroTrainer(AlphaZeroConfig(Geometry(), episodes=256, seed=seed, batch=128))


def test_numpy_forward_equals_the_equinox_network() -> None:
    config = AlphaZeroConfig(Geometry(4, 4, 4), episodes=1)
    network = init_network(config.architecture, jax.random.PRNGKey(3))
    params = to_params(config.architecture, network)
    x = np.random.default_rng(0).integers(0, 2, size=(64, 32)).astype(np.float32)
    logits, value = jax.vmap(network)(x)
    np_logits, np_value = forward(config.architecture, params, x)
    np.testing.assert_allclose(np_logits, np.asarray(logits), rtol=1e-4, atol=1e-5)
    assert np_value is not None
    np.testing.assert_allclose(np_value, np.asarray(value), rtol=1e-4, atol=1e-5)
    again = to_params(config.architecture, from_params(config.architecture, params))
    assert all(np.array_equal(again[k], params[k]) for k in params)


def test_same_seed_same_network() -> None:
    first, again = _trainer(0), _trainer(0)
    first.run(2)
    again.run(2)
    params = first.agent().params
    assert all(np.array_equal(params[k], again.agent().params[k]) for k in params)
    other = _trainer(1)
    other.run(1)
    assert not np.array_equal(other.agent().params["policy.bias"], params["policy.bias"])


def test_resume_equals_an_uninterrupted_run() -> None:
    config = AlphaZeroConfig(Geometry(3, 4, 3), episodes=256, seed=2, batch=64, updates=4)
    arrays = assert_resume_equals_whole(lambda: AlphaZeroTrainer(config))
    with pytest.raises(ValueError, match="another training state"):
        AlphaZeroTrainer(AlphaZeroConfig(Geometry(), episodes=256)).restore(arrays, 2)


def test_config_limits() -> None:
    with pytest.raises(ValueError, match="simulations"):
        AlphaZeroConfig(Geometry(), episodes=10, simulations=0)
    with pytest.raises(ValueError, match="hidden"):
        AlphaZeroConfig(Geometry(), episodes=10, hidden=())
    config = AlphaZeroConfig(Geometry(), episodes=100, batch=256)
    assert (config.games_per_iteration, config.iterations) == (100, 1)
    again = AlphaZeroConfig.from_header(Geometry(), 100, 0, config.header())
    assert again.header() == config.header()
    assert again.iterations == config.iterations


def test_every_seat_is_a_network_seat() -> None:
    assert _trainer(0).agent().seats == (Player.X, Player.O)
