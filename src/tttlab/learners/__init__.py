"""Training tabular learners (TD(0), Q-learning, SARSA, Expected SARSA, Double Q): the
compiled kernels and the batched :class:`Trainer`."""

from tttlab.learners.trainer import (
    TrainConfig,
    Trainer,
    config_from_checkpoint,
    config_from_options,
    default_config,
    default_schedules,
)

__all__ = [
    "TrainConfig",
    "Trainer",
    "config_from_checkpoint",
    "config_from_options",
    "default_config",
    "default_schedules",
]
