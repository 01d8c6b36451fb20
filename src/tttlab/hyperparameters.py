"""Every learner's hyperparameters, declared once: name, type, range, default, help and the
learners each applies to.

Everything else is derived from this table: ``ttt train``'s options (``tttlab.cli.options``),
the keyword checks of :func:`tttlab.train`, ``GET /api/algorithms`` and the web lab's form,
``ttt sweep --set``, and the defaults of the learners' configurations.

>>> BY_NAME["epsilon"].default("q")
0.1
>>> check_options("q", {"alpha": 0.3})
{'alpha': 0.3}
>>> check_options("q", {"draw_reward": 0.3})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tttlab.errors.ConfigError: --draw-reward does not apply to q (it takes --epsilon, ...)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from tttlab.errors import ConfigError, TttlabTypeError
from tttlab.limits import CONV_CHANNELS, CONV_LAYERS, HIDDEN_LAYERS, HIDDEN_WIDTH
from tttlab.schedules import SCHEDULE_KINDS, Schedule, schedule_from_options

__all__ = [
    "BY_NAME",
    "HYPERPARAMETERS",
    "LEARNERS",
    "NETWORK_LEARNERS",
    "RENAMED",
    "SCHEDULED",
    "TABLE_LEARNERS",
    "Hyperparameter",
    "check_learner",
    "check_options",
    "chosen_schedules",
    "default_schedule",
    "defaults",
    "describe",
    "for_learner",
]

#: The tabular learners (numba kernels over the full table), in the course's order.
TABLE_LEARNERS = ("td", "q", "sarsa", "expected-sarsa", "double-q")
#: The network learners (JAX, the ``neural`` extra).
NETWORK_LEARNERS = ("alphazero", "dqn", "ppo")
LEARNERS = TABLE_LEARNERS + NETWORK_LEARNERS
_Q_FAMILY = ("q", "sarsa", "expected-sarsa", "double-q")

Kind = Literal["number", "integer", "choice", "switch", "widths"]


def check_learner(name: object) -> str:
    """``name`` if it is a learner, else a one-line refusal."""
    if not isinstance(name, str):
        raise TttlabTypeError(f"algorithm must be a name, not {name!r}")
    if name not in LEARNERS:
        raise ConfigError(f"unknown algorithm {name!r}; choose one of {', '.join(LEARNERS)}")
    return name


def _widths_text(widths: tuple[int, ...]) -> str:
    """Layer widths as typed: ``128,128``, or ``none`` for no layers."""
    return ",".join(str(w) for w in widths) or "none"


@dataclass(frozen=True)
class Hyperparameter:
    """One option of some learners.

    Attributes:
        name: the Python name (``epsilon_end``); the option is ``--epsilon-end``.
        kind: ``number`` (a float in [low, high]), ``integer``, ``choice`` (one of
            ``choices``), ``switch`` (on or off: ``--double/--no-double``) or ``widths``
            (layer widths, ``128,128``; ``none`` for no layers where ``layers`` allows 0).
        help: one line for ``--help``, the web form and the docs.
        defaults: the learners it applies to, each with its default (``None``: derived,
            as ``shown`` says).
        low, high: the range (inclusive; ``low_open`` excludes ``low``).
        shown: how a ``None`` default reads (``cells - 2``).
    """

    name: str
    kind: Kind
    help: str
    defaults: Mapping[str, Any]
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple[str, ...] = ()
    shown: str | None = None
    widths: tuple[int, int] = field(default=(1, HIDDEN_WIDTH))  # widths: per layer
    layers: tuple[int, int] = field(default=(1, HIDDEN_LAYERS))  # widths: how many layers

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def learners(self) -> tuple[str, ...]:
        return tuple(name for name in LEARNERS if name in self.defaults)

    def applies(self, learner: str) -> bool:
        return learner in self.defaults

    def default(self, learner: str) -> Any:
        return self.defaults[learner]

    def default_text(self, learner: str) -> str:
        """The default for ``learner`` as ``ttt train --help`` and the docs' tables show it."""
        value = self.default(learner)
        if value is None:
            return self.shown or "none"
        if isinstance(value, tuple):
            return _widths_text(value)
        if isinstance(value, bool):
            return "on" if value else "off"
        return f"{value:g}" if isinstance(value, float) else str(value)

    def range_text(self) -> str:
        if self.kind == "choice":
            return ", ".join(self.choices)
        if self.kind == "widths":
            (fewest, most), (narrowest, widest) = self.layers, self.widths
            return f"{fewest} to {most} layers of {narrowest} to {widest}"
        if self.kind == "switch":
            return "true or false"
        opening = "(" if self.low_open else "["
        low = "" if self.low is None else f"{self.low:g}"
        high = "" if self.high is None else f"{self.high:g}"
        return f"{opening}{low}, {high}]"

    def check(self, value: Any) -> Any:
        """``value`` in its canonical type (float, int, str, bool or a tuple of widths), or a
        one-line :class:`ConfigError` (a value out of range) or :class:`TttlabTypeError`."""
        label = self.option
        if self.kind == "switch":
            if not isinstance(value, bool):
                raise TttlabTypeError(f"{label} must be true or false, not {value!r}")
            return value
        if self.kind == "choice":
            if not isinstance(value, str):
                raise TttlabTypeError(f"{label} must be one of {self.range_text()}")
            if value not in self.choices:
                raise ConfigError(f"{label} must be one of {self.range_text()}, got {value!r}")
            return value
        if self.kind == "widths":
            return self._widths(value)
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or (self.kind == "integer" and not float(value).is_integer())
        ):
            what = "a whole number" if self.kind == "integer" else "a number"
            raise TttlabTypeError(f"{label} must be {what}, not {value!r}")
        number = int(value) if self.kind == "integer" else float(value)
        if not math.isfinite(number) or (
            (self.low is not None and (number < self.low or (self.low_open and number == self.low)))
            or (self.high is not None and number > self.high)
        ):
            raise ConfigError(f"{label} must be within {self.range_text()}, got {value!r}")
        return number

    def _widths(self, value: Any) -> tuple[int, ...]:
        label = self.option
        if isinstance(value, str) and value.strip().lower() in ("none", ""):
            value = ()
        if isinstance(value, str):  # "128,128", or "128:128" where commas separate values
            try:
                value = tuple(int(part) for part in value.replace(":", ",").split(","))
            except ValueError:
                raise ConfigError(f"{label} takes widths such as 128,128, got {value!r}") from None
        if not isinstance(value, (list, tuple)) or not all(
            isinstance(w, int) and not isinstance(w, bool) for w in value
        ):
            raise TttlabTypeError(f"{label} must be widths such as (128, 128), not {value!r}")
        low, high = self.widths
        fewest, most = self.layers
        if not fewest <= len(value) <= most or not all(low <= w <= high for w in value):
            raise ConfigError(f"{label} must be {self.range_text()}, got {value!r}")
        return tuple(value)

    def parse(self, text: str) -> Any:
        """A value typed as text (``ttt sweep --set``, the command line), checked."""
        text = text.strip()
        if self.kind == "switch":
            lowered = text.lower()
            if lowered not in ("true", "false", "on", "off", "yes", "no", "1", "0"):
                raise ConfigError(f"{self.option} takes true or false, got {text!r}")
            return lowered in ("true", "on", "yes", "1")
        if self.kind in ("choice", "widths"):
            return self.check(text)
        try:
            number = float(text.replace("_", ""))
        except ValueError:
            raise ConfigError(f"{self.option} takes numbers, got {text!r}") from None
        return self.check(int(number) if self.kind == "integer" and number.is_integer() else number)

    def argv(self, value: Any) -> list[str]:
        """The command-line words that give ``value`` to ``ttt train``."""
        value = self.check(value)
        if self.kind == "switch":
            return [self.option if value else "--no-" + self.option[2:]]
        if self.kind == "widths":
            return [self.option, _widths_text(value)]
        return [self.option, str(value) if isinstance(value, str) else repr(value)]

    def describe(self, learner: str) -> dict[str, Any]:
        """The JSON the web lab builds its form from."""
        default = self.default(learner)
        return {
            "name": self.name,
            "option": self.option,
            "kind": self.kind,
            "help": self.help,
            "default": list(default) if isinstance(default, tuple) else default,
            "shown": self.shown,
            "minimum": self.low,
            "maximum": self.high,
            "exclusive_minimum": self.low_open,
            "choices": list(self.choices),
        }


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
