"""Training tabular learners (TD(0), Q-learning, SARSA, Expected SARSA, Double Q)."""

from tttlab.train.learners import (
    ALGORITHMS,
    DEFAULTS,
    ConfigError,
    Schedule,
    TrainConfig,
    Trainer,
    config_from_checkpoint,
    default_config,
)

__all__ = [
    "ALGORITHMS",
    "DEFAULTS",
    "ConfigError",
    "Schedule",
    "TrainConfig",
    "Trainer",
    "config_from_checkpoint",
    "default_config",
]
