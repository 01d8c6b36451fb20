"""Training tabular learners: configuration, initial tables and batched compiled runs."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from tttlab.agents import Agent
from tttlab.agents.base import policy_matrix
from tttlab.agents.learned import LearnedAgent
from tttlab.game import Geometry, Player, StateSpace, TableLayout, state_space, table_layout
from tttlab.train import kernels

__all__ = [
    "ALGORITHMS",
    "DEFAULTS",
    "HYPERPARAMETERS",
    "Schedule",
    "TrainConfig",
    "Trainer",
    "config_from_checkpoint",
    "config_from_options",
    "default_config",
    "schedule_from_options",
]

ALGORITHMS = ("td", "q", "sarsa", "expected-sarsa", "double-q")
_Q_CODES = {
    "q": kernels.Q_LEARNING,
    "sarsa": kernels.SARSA,
    "expected-sarsa": kernels.EXPECTED_SARSA,
    "double-q": kernels.DOUBLE_Q,
}
_KINDS = {"constant": 0, "linear": 1, "exponential": 2}
#: The kinds of schedule ε and α may follow.
SCHEDULE_KINDS = tuple(_KINDS)
ScheduleKind = Literal["constant", "linear", "exponential"]


class ConfigError(ValueError):
    """Hyperparameters that cannot be used."""


@dataclass(frozen=True)
class Schedule:
    """A value that may change over training: constant, or linear / exponential from
    ``start`` at the first episode to ``end`` at the last."""

    kind: ScheduleKind = "constant"
    start: float = 0.1
    end: float | None = None

    def validate(self, label: str) -> None:
        if self.kind not in _KINDS:
            raise ConfigError(f"{label} schedule must be constant, linear or exponential")
        for which, v in (("start", self.start), ("end", self.end)):
            if v is not None and not (math.isfinite(v) and 0.0 <= v <= 1.0):
                raise ConfigError(f"{label} {which} must be within [0, 1], got {v}")
        if self.kind != "constant" and self.end is None:
            raise ConfigError(f"a {self.kind} {label} schedule needs an end value (--{label}-end)")
        if self.kind == "exponential" and (self.start <= 0 or (self.end or 0) <= 0):
            raise ConfigError(f"an exponential {label} schedule needs start and end above 0")

    def row(self) -> list[float]:
        end = self.start if self.end is None else self.end
        return [float(_KINDS[self.kind]), float(self.start), float(end)]

    def at(self, t: int, total: int) -> float:
        kind, start, end = self.row()
        return float(kernels.scheduled(int(kind), start, end, t, total))


@dataclass(frozen=True)
class TrainConfig:
    """Everything that determines a training run (and so the agent file it writes)."""

    algorithm: str
    episodes: int
    seed: int = 0
    geometry: Geometry = field(default_factory=Geometry)
    epsilon: Schedule = field(default_factory=Schedule)
    alpha: Schedule = field(default_factory=lambda: Schedule("constant", 0.5))
    gamma: float = 1.0
    draw_reward: float = 0.5
    seat: Player | None = None  # None: self-play, both seats learn
    opponent: str | None = None  # the fixed opponent's name or file when seat is set
    symmetric: bool = True  # one table row per position up to the board's symmetries

    def validate(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ConfigError(
                f"unknown algorithm {self.algorithm!r}; choose one of {', '.join(ALGORITHMS)}"
            )
        if isinstance(self.episodes, bool) or not isinstance(self.episodes, int):
            raise ConfigError("episodes must be a whole number")
        if self.episodes < 1:
            raise ConfigError(f"episodes must be at least 1, got {self.episodes}")
        self.epsilon.validate("epsilon")
        self.alpha.validate("alpha")
        for label, v in (("gamma", self.gamma), ("draw reward", self.draw_reward)):
            if not (math.isfinite(v) and 0.0 <= v <= 1.0):
                raise ConfigError(f"{label} must be within [0, 1], got {v}")
        if (self.seat is None) != (self.opponent is None):
            raise ConfigError("a fixed opponent needs the learning seat, and the reverse")

    def header(self) -> dict[str, Any]:
        """The hyperparameters as they go into the agent file."""
        return {
            "epsilon": asdict(self.epsilon),
            "alpha": asdict(self.alpha),
            "gamma": self.gamma,
            "draw_reward": self.draw_reward,
            "seat": None if self.seat is None else self.seat.name,
            "opponent": self.opponent,
            "symmetric": self.symmetric,
        }


#: Defaults per algorithm (see README, "Why the defaults differ from the course").
DEFAULTS: dict[str, dict[str, Any]] = {
    "td": {"epsilon": Schedule("linear", 0.3, 0.0), "alpha": Schedule("linear", 0.5, 0.1)},
    "q": {"epsilon": Schedule("constant", 0.1), "alpha": Schedule("constant", 0.5)},
    "sarsa": {"epsilon": Schedule("linear", 0.5, 0.0), "alpha": Schedule("linear", 0.5, 0.05)},
    "expected-sarsa": {
        "epsilon": Schedule("linear", 1.0, 0.0),
        "alpha": Schedule("linear", 0.5, 0.1),
    },
    "double-q": {
        "epsilon": Schedule("linear", 1.0, 0.0),
        "alpha": Schedule("linear", 0.5, 0.1),
    },
}


def config_from_checkpoint(data: dict[str, Any]) -> TrainConfig:
    """Rebuild the configuration stored by :meth:`Trainer.checkpoint` (validated)."""
    try:
        hyper = data["hyperparameters"]
        seat = hyper["seat"]
        config = TrainConfig(
            algorithm=str(data["algorithm"]),
            episodes=data["episodes"],
            seed=data["seed"],
            geometry=Geometry.parse(str(data["board"])),
            epsilon=Schedule(**hyper["epsilon"]),
            alpha=Schedule(**hyper["alpha"]),
            gamma=float(hyper["gamma"]),
            draw_reward=float(hyper["draw_reward"]),
            seat=None if seat is None else Player.parse(str(seat)),
            opponent=hyper["opponent"],
            symmetric=bool(hyper.get("symmetric", True)),
        )
        config.validate()
    except ConfigError:
        raise
    except (KeyError, TypeError, ValueError) as error:
        raise ConfigError(
            f"the checkpoint's configuration is incomplete or invalid ({error})"
        ) from None
    if not isinstance(data.get("done"), int) or not isinstance(data.get("rng_state"), dict):
        raise ConfigError("the checkpoint has no episode count or generator state")
    return config


def default_config(algorithm: str, episodes: int, seed: int = 0, **overrides: Any) -> TrainConfig:
    base = TrainConfig(algorithm=algorithm, episodes=episodes, seed=seed)
    chosen = DEFAULTS.get(algorithm, {})
    return replace(base, **{**chosen, **{k: v for k, v in overrides.items() if v is not None}})


#: Hyperparameters by their command-line names (``--alpha`` ...), as ``ttt train`` and
#: ``ttt sweep --set`` take them.
HYPERPARAMETERS = (
    "epsilon",
    "epsilon-end",
    "epsilon-schedule",
    "alpha",
    "alpha-end",
    "alpha-schedule",
    "gamma",
    "draw-reward",
)


def schedule_from_options(
    kind: str | None, start: float | None, end: float | None, default: Schedule
) -> Schedule | None:
    if kind is None and start is None and end is None:
        return None
    chosen_kind = kind or ("constant" if end is None else default.kind)
    chosen_start = start if start is not None else default.start
    chosen_end = end if end is not None else (default.end if chosen_kind != "constant" else None)
    return Schedule(chosen_kind, chosen_start, chosen_end)  # type: ignore[arg-type]


def config_from_options(
    algorithm: str,
    episodes: int,
    seed: int = 0,
    geometry: Geometry | None = None,
    options: dict[str, Any] | None = None,
    **overrides: Any,
) -> TrainConfig:
    """The configuration that ``ttt train ALGORITHM --episodes N --seed S`` with the given
    options builds (options by their command-line names, ``-`` or ``_``; ``None`` means not
    given): a start value alone makes a constant schedule, an end value keeps the default's
    kind. Validated; raises :class:`ConfigError`."""
    given = {key.replace("_", "-"): value for key, value in (options or {}).items()}
    unknown = sorted(set(given) - set(HYPERPARAMETERS))
    if unknown:
        raise ConfigError(
            f"unknown hyperparameter {unknown[0]!r}; choose from {', '.join(HYPERPARAMETERS)}"
        )
    if algorithm not in ALGORITHMS:
        raise ConfigError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    for key in ("epsilon", "epsilon-end", "alpha", "alpha-end", "gamma", "draw-reward"):
        value = given.get(key)
        if value is not None and (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not (math.isfinite(value) and 0.0 <= value <= 1.0)
        ):
            raise ConfigError(f"{key} must be a number within [0, 1], got {value!r}")
    for key in ("epsilon-schedule", "alpha-schedule"):
        value = given.get(key)
        if value is not None and value not in _KINDS:
            raise ConfigError(f"{key} must be constant, linear or exponential, got {value!r}")
    base = default_config(algorithm, episodes, seed)
    config = default_config(
        algorithm,
        episodes,
        seed,
        geometry=geometry,
        epsilon=schedule_from_options(
            given.get("epsilon-schedule"),
            given.get("epsilon"),
            given.get("epsilon-end"),
            base.epsilon,
        ),
        alpha=schedule_from_options(
            given.get("alpha-schedule"), given.get("alpha"), given.get("alpha-end"), base.alpha
        ),
        gamma=given.get("gamma"),
        draw_reward=given.get("draw-reward"),
        **overrides,
    )
    config.validate()
    return config


def initial_tables(
    config: TrainConfig, space: StateSpace, layout: TableLayout
) -> dict[str, npt.NDArray[np.float64]]:
    """TD: 1 for a won final position, 0 for a lost one, ``draw_reward`` for a drawn one
    (the course uses 0), 0.5 elsewhere. Q tables start at 0. One row per table row of
    ``layout`` (results are the same for symmetric positions)."""
    if config.algorithm == "td":
        terminal = space.terminal[layout.rows]
        winner = space.winner[layout.rows]
        v = np.full((2, layout.size), 0.5)
        for seat in (1, 2):
            row = v[seat - 1]
            row[terminal] = 0.0
            row[terminal & (winner == 0)] = config.draw_reward
            row[winner == seat] = 1.0
        return {"V": v}
    count = 2 if config.algorithm == "double-q" else 1
    return {"Q": np.zeros((count, layout.size, space.geometry.cells))}


class Trainer:
    """Runs a configured learner in batches, so callers can show progress, evaluate,
    checkpoint or stop between batches. The result does not depend on the batch sizes."""

    def __init__(self, config: TrainConfig, opponent: Agent | None = None) -> None:
        config.validate()
        if (opponent is None) != (config.seat is None):
            raise ConfigError("a fixed opponent agent is needed exactly when a seat is set")
        self.config = config
        self.space = state_space(config.geometry)
        self.layout = table_layout(self.space, config.symmetric)
        self.tables = initial_tables(config, self.space, self.layout)
        self.rng = np.random.default_rng(config.seed)
        self.done = 0
        cells = config.geometry.cells
        if config.seat is None:
            self._learn = 3
            self._opponent = np.zeros((1, cells))
        else:
            assert opponent is not None
            self._learn = int(config.seat)
            self._opponent = policy_matrix(opponent, self.space, config.seat.other)
        self._schedule = np.array([config.epsilon.row(), config.alpha.row()])

    @property
    def remaining(self) -> int:
        return self.config.episodes - self.done

    def run(self, count: int | None = None) -> int:
        """Run the next ``count`` episodes (default: all that remain); returns how many ran."""
        n = self.remaining if count is None else min(count, self.remaining)
        if n <= 0:
            return 0
        s = self.space
        c = self.config
        if c.algorithm == "td":
            kernels.td_episodes(
                self.tables["V"],
                s.next,
                s.terminal,
                s.winner,
                s.to_move,
                self.layout.row_of,
                self._learn,
                self._opponent,
                c.draw_reward,
                self._schedule,
                self.done,
                n,
                c.episodes,
                self.rng,
            )
        else:
            kernels.q_family_episodes(
                _Q_CODES[c.algorithm],
                self.tables["Q"],
                s.next,
                s.terminal,
                s.winner,
                s.to_move,
                self.layout.row_of,
                self.layout.sym,
                self.layout.pinv,
                self._learn,
                self._opponent,
                c.gamma,
                self._schedule,
                self.done,
                n,
                c.episodes,
                self.rng,
            )
        self.done += n
        return n

    def checkpoint(self) -> dict[str, Any]:
        """What resuming needs besides the tables: the configuration, the episode count and
        the generator's state (all JSON)."""
        c = self.config
        return {
            "algorithm": c.algorithm,
            "episodes": c.episodes,
            "seed": c.seed,
            "board": c.geometry.name,
            "hyperparameters": c.header(),
            "done": self.done,
            "rng_state": self.rng.bit_generator.state,
        }

    def restore(
        self, tables: dict[str, npt.NDArray[np.float64]], done: int, rng_state: dict[str, Any]
    ) -> None:
        """Continue from a checkpoint: tables, episodes done and the generator's state."""
        if set(tables) != set(self.tables) or any(
            tables[k].shape != self.tables[k].shape for k in tables
        ):
            raise ConfigError("the checkpoint's tables do not fit this configuration")
        if not 0 <= done <= self.config.episodes:
            raise ConfigError(
                f"the checkpoint says {done} episodes were done, of {self.config.episodes}"
            )
        try:
            self.rng.bit_generator.state = rng_state
        except (TypeError, ValueError, KeyError) as error:
            raise ConfigError(f"the checkpoint's generator state is invalid ({error})") from None
        self.tables = {k: np.array(v, dtype=np.float64) for k, v in tables.items()}
        self.done = done

    @property
    def seats(self) -> tuple[Player, ...]:
        return (Player.X, Player.O) if self.config.seat is None else (self.config.seat,)

    def agent(self, label: str = "") -> LearnedAgent:
        """An agent acting from a copy of the current tables."""
        return LearnedAgent(
            algorithm=self.config.algorithm,
            geometry=self.config.geometry,
            seats=self.seats,
            tables={k: v.copy() for k, v in self.tables.items()},
            meta={"episodes": self.done, **self.config.header()},
            symmetric=self.config.symmetric,
            label=label or self.config.algorithm,
        )
