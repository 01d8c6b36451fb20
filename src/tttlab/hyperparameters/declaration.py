"""The declaration: every learner's hyperparameters in one table (name, kind, range, default
per learner, help), and what is derived from it per learner: the options it takes, their
defaults, the check of options given, the schedules they make and their JSON.

>>> BY_NAME["epsilon"].default("q")
0.1
>>> [h.name for h in for_learner("td")][:3]
['epsilon', 'epsilon_end', 'epsilon_schedule']
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from tttlab.errors import ConfigError
from tttlab.hyperparameters.option import (
    NETWORK_LEARNERS,
    TABLE_LEARNERS,
    Hyperparameter,
    check_learner,
)
from tttlab.limits import CONV_CHANNELS, CONV_LAYERS
from tttlab.schedules import SCHEDULE_KINDS, Schedule, schedule_from_options

__all__ = [
    "BY_NAME",
    "HYPERPARAMETERS",
    "RENAMED",
    "SCHEDULED",
    "check_options",
    "chosen_schedules",
    "default_schedule",
    "defaults",
    "describe",
    "for_learner",
]

_Q_FAMILY = ("q", "sarsa", "expected-sarsa", "double-q")


def _each(names: tuple[str, ...], value: Any) -> dict[str, Any]:
    return dict.fromkeys(names, value)


def _unit(name: str, help: str, defaults: dict[str, Any], shown: str | None = None) -> Any:
    return Hyperparameter(name, "number", help, defaults, low=0.0, high=1.0, shown=shown)


def _count(name: str, help: str, defaults: dict[str, Any], low: int, high: int) -> Any:
    return Hyperparameter(name, "integer", help, defaults, low=low, high=high)


def _choice(name: str, help: str, defaults: dict[str, Any], choices: tuple[str, ...]) -> Any:
    return Hyperparameter(name, "choice", help, defaults, choices=choices)


def _switch(name: str, help: str, defaults: dict[str, Any]) -> Any:
    return Hyperparameter(name, "switch", help, defaults)


_TABLE = TABLE_LEARNERS
_START = "the start value of its schedule"
_END = "at the last episode (linear or exponential schedules)"
_CONSTANT = "none (constant)"
_NETWORKS = NETWORK_LEARNERS

HYPERPARAMETERS: tuple[Hyperparameter, ...] = (
    _unit(
        "epsilon",
        f"Exploration rate: {_START}.",
        {"td": 0.3, "q": 0.1, "sarsa": 0.5, "expected-sarsa": 1.0, "double-q": 1.0, "dqn": 1.0},
    ),
    _unit(
        "epsilon_end",
        f"Exploration rate {_END}.",
        {"td": 0.0, "q": None, "sarsa": 0.0, "expected-sarsa": 0.0, "double-q": 0.0, "dqn": 0.05},
        _CONSTANT,
    ),
    _choice(
        "epsilon_schedule",
        "How the exploration rate goes from --epsilon to --epsilon-end.",
        {**_each(_TABLE, "linear"), "q": "constant", "dqn": "linear"},
        SCHEDULE_KINDS,
    ),
    _unit("alpha", f"Step size of the table updates: {_START}.", _each(_TABLE, 0.5)),
    _unit(
        "alpha_end",
        f"Step size {_END}.",
        {"td": 0.1, "q": None, "sarsa": 0.05, "expected-sarsa": 0.1, "double-q": 0.1},
        _CONSTANT,
    ),
    _choice(
        "alpha_schedule",
        "How the step size goes from --alpha to --alpha-end.",
        {**_each(_TABLE, "linear"), "q": "constant"},
        SCHEDULE_KINDS,
    ),
    _unit("gamma", "Discount of the value of the next position.", _each((*_Q_FAMILY, "dqn"), 1.0)),
    _unit("draw_reward", "TD's value of a draw (the course's 0 never holds a draw).", {"td": 0.5}),
    _count("simulations", "Search simulations per self-play move.", {"alphazero": 32}, 1, 4096),
    _count(
        "batch",
        "Games played at once per iteration.",
        {"alphazero": 256, "dqn": 128, "ppo": 256},
        1,
        1 << 20,
    ),
    Hyperparameter(
        "hidden", "widths", "Widths of the hidden layers.", _each(_NETWORKS, (128, 128))
    ),
    Hyperparameter(
        "conv",
        "widths",
        "Channels of 3x3 convolution layers before the hidden layers (none: no convolutions).",
        _each(_NETWORKS, ()),
        widths=(1, CONV_CHANNELS),
        layers=(0, CONV_LAYERS),
    ),
    Hyperparameter(
        "learning_rate",
        "number",
        "The networks' optimiser step (Adam's step size).",
        {"alphazero": 0.001, "dqn": 0.001, "ppo": 0.0003},
        0.0,
        1.0,
        low_open=True,
    ),
    _count("updates", "Gradient steps per iteration.", {"alphazero": 32, "dqn": 64}, 0, 1 << 16),
    _count("minibatch", "Positions per gradient step.", _each(_NETWORKS, 256), 1, 1 << 20),
    _count("replay", "Iterations of games to learn from.", {"alphazero": 8, "dqn": 32}, 1, 4096),
    Hyperparameter(
        "opening",
        "integer",
        "At most this many uniformly random opening moves per game, not trained on.",
        {"alphazero": None, "ppo": None},
        low=0,
        high=64,
        shown="cells - 2",
    ),
    _count("epochs", "Passes over each iteration's positions.", {"ppo": 4}, 1, 256),
    _unit("clip", "PPO's clip: the policy ratio is kept within 1 ± clip.", {"ppo": 0.2}),
    _unit("entropy", "Coefficient of the entropy bonus.", {"ppo": 0.01}),
    _unit("value_coef", "Coefficient of the value loss.", {"ppo": 0.5}),
    _unit("gae_lambda", "λ of generalised advantage estimation.", {"ppo": 0.95}),
    _switch("anneal", "Adam's step falls linearly to 0 over the run.", {"ppo": True}),
    _count("target_every", "Gradient steps between copies to the target.", {"dqn": 64}, 1, 1 << 24),
    _switch("double", "Double DQN: the online network picks, the target values.", {"dqn": True}),
    _count("n_step", "Plies a target looks ahead before it bootstraps.", {"dqn": 1}, 1, 16),
    _switch(
        "augment", "Train on a random symmetry of each position.", _each(("alphazero", "dqn"), True)
    ),
    _switch(
        "symmetrize",
        "The agent plays the network's outputs averaged over the board's symmetries.",
        {"alphazero": True, "dqn": False, "ppo": False},
    ),
    Hyperparameter(
        "average",
        "number",
        "The agent is a moving average of the network: the share of the old kept per iteration.",
        {"alphazero": 0.98},
        0.0,
        0.999,
    ),
    _choice(
        "perspective",
        "Values for the mover (one function for both seats), or for X, which O minimises.",
        {"dqn": "mover"},
        ("mover", "x"),
    ),
)
BY_NAME: dict[str, Hyperparameter] = {h.name: h for h in HYPERPARAMETERS}
#: The options that are schedules: each with ``_end`` and ``_schedule`` makes one.
SCHEDULED = ("epsilon", "alpha")
#: Old names that still work, each saying once that it is deprecated: (learner, old) → new.
RENAMED = {("dqn", "alpha"): "learning_rate"}


def for_learner(learner: str) -> tuple[Hyperparameter, ...]:
    """The hyperparameters ``learner`` takes, in the table's order."""
    return tuple(h for h in HYPERPARAMETERS if h.applies(learner))


def defaults(learner: str) -> dict[str, Any]:
    """Each hyperparameter of ``learner`` with its default."""
    return {h.name: h.default(learner) for h in for_learner(check_learner(learner))}


def check_options(learner: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The hyperparameters given for ``learner`` (names with ``_`` or ``-``; ``None`` means
    not given), each checked and in its canonical type. An unknown name, or one that does
    not apply to ``learner``, is a one-line :class:`ConfigError`."""
    check_learner(learner)
    chosen: dict[str, Any] = {}
    for key, value in given.items():
        name = str(key).replace("-", "_").removeprefix("__")
        entry = BY_NAME.get(name)
        if entry is None:
            raise ConfigError(
                f"unknown hyperparameter {key!r}; {learner} takes "
                f"{', '.join(h.name for h in for_learner(learner))}"
            )
        if value is None:
            continue
        if (learner, name) in RENAMED:
            old, entry = entry, BY_NAME[RENAMED[learner, name]]
            warnings.warn(
                f"{old.option} is deprecated for {learner}: its optimiser step is "
                f"{entry.option}, as for every network learner",
                FutureWarning,
                stacklevel=2,
            )
            name = entry.name
            if any(given.get(k) is not None for k in (name, name.replace("_", "-"))):
                raise ConfigError(f"{old.option} and {entry.option} are the same option")
        if not entry.applies(learner):
            takes = ", ".join(h.option for h in for_learner(learner))
            raise ConfigError(f"{entry.option} does not apply to {learner} (it takes {takes})")
        chosen[name] = entry.check(value)
    for name, schedule in chosen_schedules(learner, chosen).items():
        schedule.validate(name)  # a schedule is checked as a whole too
    return chosen


def chosen_schedules(learner: str, options: Mapping[str, Any]) -> dict[str, Schedule]:
    """The ε and α schedules that ``options`` (by Python name) ask for, each only if one of
    its three options is given (see :func:`schedule_from_options`)."""
    chosen: dict[str, Schedule] = {}
    for name in SCHEDULED:
        if BY_NAME[name].applies(learner):
            schedule = schedule_from_options(
                options.get(f"{name}_schedule"),
                options.get(name),
                options.get(f"{name}_end"),
                default_schedule(learner, name),
            )
            if schedule is not None:
                chosen[name] = schedule
    return chosen


def default_schedule(learner: str, name: str) -> Schedule:
    """The default schedule of ``epsilon`` or ``alpha`` for ``learner``."""
    return Schedule(
        BY_NAME[f"{name}_schedule"].default(learner),
        BY_NAME[name].default(learner),
        BY_NAME[f"{name}_end"].default(learner),
    )


def describe(learner: str) -> list[dict[str, Any]]:
    """Each hyperparameter of ``learner`` as JSON (``GET /api/algorithms``)."""
    return [h.describe(learner) for h in for_learner(check_learner(learner))]
