"""Training tabular learners: configuration, initial tables and batched compiled runs."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from tttlab.agents import Agent
from tttlab.agents.base import policy_matrix
from tttlab.agents.learned import LearnedAgent
from tttlab.errors import ConfigError
from tttlab.game import Geometry, Player, StateSpace, TableLayout, state_space, table_layout
from tttlab.hyperparameters import (
    TABLE_LEARNERS,
    check_options,
    chosen_schedules,
    default_schedule,
)
from tttlab.learners import kernels
from tttlab.schedules import Schedule

_Q_CODES = {
    "q": kernels.Q_LEARNING,
    "sarsa": kernels.SARSA,
    "expected-sarsa": kernels.EXPECTED_SARSA,
    "double-q": kernels.DOUBLE_Q,
}


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
        if self.algorithm not in TABLE_LEARNERS:
            raise ConfigError(
                f"unknown algorithm {self.algorithm!r}; choose one of {', '.join(TABLE_LEARNERS)}"
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


def default_schedules(algorithm: str) -> dict[str, Schedule]:
    """ε and α of ``algorithm`` by default (docs/guides/learners.md, "Defaults, and why they
    differ from the course"), from the one declaration in :mod:`tttlab.hyperparameters`."""
    return {name: default_schedule(algorithm, name) for name in ("epsilon", "alpha")}


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
    chosen = default_schedules(algorithm) if algorithm in TABLE_LEARNERS else {}
    return replace(base, **{**chosen, **{k: v for k, v in overrides.items() if v is not None}})


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
    given; checked by :func:`tttlab.hyperparameters.check_options`): a start value alone
    makes a constant schedule, an end value keeps the default's kind. Validated; raises
    :class:`ConfigError`."""
    if algorithm not in TABLE_LEARNERS:
        raise ConfigError(
            f"unknown algorithm {algorithm!r}; choose one of {', '.join(TABLE_LEARNERS)}"
        )
    given = check_options(algorithm, options or {})
    schedules = chosen_schedules(algorithm, given)
    config = default_config(
        algorithm,
        episodes,
        seed,
        geometry=geometry,
        epsilon=schedules.get("epsilon"),
        alpha=schedules.get("alpha"),
        gamma=given.get("gamma"),
        draw_reward=given.get("draw_reward"),
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
