"""AlphaZero on the batched environment: small budgets, exact judgements."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from tests.neural.conftest import assert_resume_equals_whole
from tttlab.agents.network import forward
from tttlab.evaluation import evaluate_seats
from tttlab.game import Geometry, Player
from tttlab.neural.alphazero import AlphaZeroConfig, AlphaZeroTrainer
from tttlab.neural.network import from_params, init_network, to_params


@pytest.fixture(scope="module")
def short_run() -> AlphaZeroTrainer:
    trainer = AlphaZeroTrainer(AlphaZeroConfig(Geometry(), episodes=1024, seed=0, batch=128))
    trainer.run(8)
    return trainer


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


def test_a_short_run_beats_random_as_x(short_run: AlphaZeroTrainer) -> None:
    reports = evaluate_seats(short_run.agent(), Geometry())
    assert reports["X"].win >= 0.9  # exact share of wins against a uniformly random O
    assert reports["X"].loss <= reports["O"].loss


def test_same_seed_same_network(short_run: AlphaZeroTrainer) -> None:
    again = AlphaZeroTrainer(AlphaZeroConfig(Geometry(), episodes=1024, seed=0, batch=128))
    again.run(8)
    first, second = short_run.agent().params, again.agent().params
    assert all(np.array_equal(first[k], second[k]) for k in first)
    other = AlphaZeroTrainer(AlphaZeroConfig(Geometry(), episodes=1024, seed=1, batch=128))
    other.run(1)
    assert not np.array_equal(other.agent().params["policy.bias"], first["policy.bias"])


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


def test_every_seat_is_a_network_seat(short_run: AlphaZeroTrainer) -> None:
    assert short_run.agent().seats == (Player.X, Player.O)
