"""A network learner's configuration, derived from the one declaration of its options
(:mod:`tttlab.hyperparameters`): which fields it has, their defaults and checks, the header
its agent files carry, and rebuilding it from options or from such a header (a resumed run).
Nothing here lists a learner's options again: a learner's configuration class names the
learner, and adds what the options imply (its network, its opening).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, ClassVar, Self

from tttlab.agents.forward import Architecture
from tttlab.errors import ConfigError
from tttlab.game import Geometry
from tttlab.hyperparameters import (
    BY_NAME,
    SCHEDULED,
    check_options,
    chosen_schedules,
    default_schedule,
    for_learner,
)
from tttlab.schedules import Schedule

__all__ = ["NetworkConfig"]


class NetworkConfig:
    """Everything that fixes a run of a network learner (with the seed, it fixes the result
    on a CPU): the board, the self-play games in all (rounded up to whole iterations of
    ``batch`` games), the seed, and each hyperparameter the learner takes, as an attribute
    of its declared name (a schedule's three options make one :class:`Schedule`).

    Frozen, and equal to another when every value is."""

    #: The learner, as :mod:`tttlab.hyperparameters` names it.
    learner: ClassVar[str]

    geometry: Geometry
    episodes: int
    seed: int

    def __init__(
        self, geometry: Geometry, episodes: int, seed: int = 0, **hyperparameters: Any
    ) -> None:
        if isinstance(episodes, bool) or not isinstance(episodes, int):
            raise ConfigError("episodes must be a whole number")
        if episodes < 1:
            raise ConfigError(f"episodes must be at least 1, got {episodes}")
        given = dict(hyperparameters)
        schedules = {k: given.pop(k) for k in SCHEDULED if isinstance(given.get(k), Schedule)}
        learner = self.learner
        chosen = check_options(learner, given)
        values = {h.name: chosen.get(h.name, h.default(learner)) for h in for_learner(learner)}
        schedules = {**chosen_schedules(learner, chosen), **schedules}  # given whole: theirs
        for name in SCHEDULED:
            if name in values:
                schedule = schedules.get(name) or default_schedule(learner, name)
                schedule.validate(name)
                values[name] = schedule
                del values[f"{name}_end"], values[f"{name}_schedule"]
        object.__setattr__(self, "geometry", geometry)
        object.__setattr__(self, "episodes", episodes)
        object.__setattr__(self, "seed", seed)
        object.__setattr__(self, "_values", values)
        opening = values.get("opening")
        if opening is not None and opening > geometry.cells:
            raise ConfigError(f"--opening must be at most {geometry.cells} on this board")

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("_values", {})
        if name in values:
            return values[name]
        raise AttributeError(f"{type(self).__name__} has no {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def _key(self) -> tuple[Any, ...]:
        return (type(self), self.geometry, self.episodes, self.seed, self.__dict__["_values"])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NetworkConfig) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        options = ", ".join(f"{k}={v!r}" for k, v in self.__dict__["_values"].items())
        return f"{type(self).__name__}({self.geometry.name}, episodes={self.episodes}, {options})"

    # -- what the options imply ----------------------------------------------------------

    @property
    def games_per_iteration(self) -> int:
        return int(min(self.batch, self.episodes))

    @property
    def iterations(self) -> int:
        return -(-self.episodes // self.games_per_iteration)

    def shaped(self, head: str, perspective: str = "mover") -> Architecture:
        """The network these options give, with this head and perspective."""
        return Architecture(
            self.geometry.cells,
            self.hidden,
            head,
            perspective,
            self.symmetrize,
            self.conv,
            self.geometry.cols if self.conv else 0,
        )

    @property
    def random_plies(self) -> int:
        """The most uniformly random opening moves of a game (``opening``; ``None`` means
        cells − 2)."""
        opening = self.__dict__["_values"].get("opening")
        return max(0, self.geometry.cells - 2) if opening is None else int(opening)

    # -- the header of its agent files ---------------------------------------------------

    def header(self) -> dict[str, Any]:
        """The hyperparameters, as agent files and ``--json`` show them (in the declaration's
        order; ``batch`` and ``opening`` as played)."""
        shown: dict[str, Any] = {}
        for name, value in self.__dict__["_values"].items():
            if name == "batch":
                value = self.games_per_iteration
            elif name == "opening":
                value = self.random_plies
            elif isinstance(value, Schedule):
                value = asdict(value)
            elif isinstance(value, tuple):
                value = list(value)
            shown[name] = value
        return shown

    @classmethod
    def from_options(
        cls, geometry: Geometry, episodes: int, seed: int, options: dict[str, Any]
    ) -> Self:
        """The configuration ``ttt train`` builds (options by declared name, checked)."""
        return cls(geometry, episodes, seed, **options)

    @classmethod
    def from_header(
        cls, geometry: Geometry, episodes: int, seed: int, header: dict[str, Any]
    ) -> Self:
        """The configuration an agent file's ``hyperparameters`` describe (a resumed run)."""
        options: dict[str, Any] = {}
        if cls.learner == "ppo" and "anneal" not in header:  # files from before --anneal
            options["anneal"] = False
        options["symmetrize"] = False  # files from before --symmetrize, unless they say
        if cls.learner == "alphazero":
            options["average"] = 0.0  # and from before --average
        for key, value in header.items():
            name = key.replace("-", "_")
            if name == "alpha" and cls.learner == "dqn":  # files from before --learning-rate
                name, value = "learning_rate", _constant(value)
            elif name in SCHEDULED:
                if not isinstance(value, dict):
                    raise ConfigError(f"{name} is not a schedule")
                value = Schedule(**value)
            elif name not in BY_NAME or not BY_NAME[name].applies(cls.learner):
                raise ConfigError(f"unknown hyperparameters {[key]} for {cls.learner}")
            options[name] = value
        return cls(geometry, episodes, seed, **options)


def _constant(schedule: Any) -> Any:
    """A learning rate kept as a schedule (dqn's files before ``--learning-rate``): its
    value, when it was constant."""
    if not isinstance(schedule, dict) or schedule.get("end") is not None:
        raise ConfigError("this file's learning rate changes over the run; dqn's is constant")
    return schedule.get("start")
