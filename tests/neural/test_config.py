"""A network learner's configuration (:mod:`tttlab.neural.config`), for each learner: its
options checked with the option's name, the games per iteration and the iterations, the
header of its agent files, and the configuration rebuilt from options or from that header
(files from before an option included)."""

from __future__ import annotations

import pytest

from tttlab.errors import ConfigError
from tttlab.game import Geometry
from tttlab.neural.alphazero import AlphaZeroConfig
from tttlab.neural.dqn import DQNConfig
from tttlab.neural.ppo import PPOConfig
from tttlab.schedules import Schedule


def test_alphazero_config_limits() -> None:
    with pytest.raises(ValueError, match="simulations"):
        AlphaZeroConfig(Geometry(), episodes=10, simulations=0)
    with pytest.raises(ValueError, match="hidden"):
        AlphaZeroConfig(Geometry(), episodes=10, hidden=())
    config = AlphaZeroConfig(Geometry(), episodes=100, batch=256)
    assert (config.games_per_iteration, config.iterations) == (100, 1)
    again = AlphaZeroConfig.from_header(Geometry(), 100, 0, config.header())
    assert again.header() == config.header()
    assert again.iterations == config.iterations


def test_dqn_config_limits_and_headers() -> None:
    for bad in ({"gamma": 1.5}, {"updates": -1}, {"target_every": 0}, {"perspective": "o"}):
        (name,) = bad
        with pytest.raises(ConfigError, match="--" + name.replace("_", "-")):
            DQNConfig(Geometry(), episodes=10, **bad)  # type: ignore[arg-type]
    config = DQNConfig(Geometry(), episodes=300, batch=128, double=False, perspective="x")
    assert (config.games_per_iteration, config.iterations) == (128, 3)
    again = DQNConfig.from_header(Geometry(), 300, 0, config.header())
    assert again == config
    with pytest.raises(ValueError, match="unknown"):
        DQNConfig.from_header(Geometry(), 300, 0, {"simulations": 3})
    chosen = DQNConfig.from_options(
        Geometry(), 10, 0, {"epsilon": 0.2, "epsilon_schedule": "linear", "epsilon_end": 0.01}
    )
    assert chosen.epsilon == Schedule("linear", 0.2, 0.01)
    assert chosen.learning_rate == 1e-3


def test_ppo_config_limits_and_headers() -> None:
    with pytest.raises(ConfigError, match="--clip must be within"):
        PPOConfig(Geometry(), episodes=10, clip=1.5)
    with pytest.raises(ConfigError, match="--opening must be at most 9"):
        PPOConfig(Geometry(), episodes=10, opening=10)
    header = PPOConfig(Geometry(), episodes=10).header()
    assert header["clip"] == 0.2
    assert header["opening"] == 7
