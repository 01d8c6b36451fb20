"""Training tabular learners (TD(0), Q-learning, SARSA, Expected SARSA, Double Q)."""

from tttlab.train.learners import (
    ALGORITHMS,
    DEFAULTS,
    HYPERPARAMETERS,
    SCHEDULE_KINDS,
    ConfigError,
    Schedule,
    TrainConfig,
    Trainer,
    config_from_checkpoint,
    config_from_options,
    default_config,
)

__all__ = [
    "ALGORITHMS",
    "DEFAULTS",
    "HYPERPARAMETERS",
    "SCHEDULE_KINDS",
    "ConfigError",
    "Schedule",
    "TrainConfig",
    "Trainer",
    "config_from_checkpoint",
    "config_from_options",
    "default_config",
]
