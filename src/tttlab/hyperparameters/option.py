"""One option of some learners, and the learners there are: what kind of value it takes, its
range, its default for each learner it applies to, and how a value is checked, parsed from
text, shown and written back as command-line words.

>>> rate = Hyperparameter("rate", "number", "A rate.", {"q": 0.5}, low=0.0, high=1.0)
>>> rate.option, rate.range_text(), rate.default_text("q")
('--rate', '[0, 1]', '0.5')
>>> rate.parse("0.25"), rate.argv(0.25)
(0.25, ['--rate', '0.25'])
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from tttlab.errors import ConfigError, TttlabTypeError
from tttlab.limits import HIDDEN_LAYERS, HIDDEN_WIDTH

__all__ = [
    "LEARNERS",
    "NETWORK_LEARNERS",
    "TABLE_LEARNERS",
    "Hyperparameter",
    "check_learner",
]

#: The tabular learners (numba kernels over the full table), in the course's order.
TABLE_LEARNERS = ("td", "q", "sarsa", "expected-sarsa", "double-q")
#: The network learners (JAX, the ``neural`` extra).
NETWORK_LEARNERS = ("alphazero", "dqn", "ppo")
LEARNERS = TABLE_LEARNERS + NETWORK_LEARNERS

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
