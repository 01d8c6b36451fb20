"""A training run of any learner behind one small interface, started from options or
resumed from a checkpoint file: what the driver (:func:`tttlab.training.drive`) runs.

Table learners run any number of episodes at a time (a batch of the compiled kernel); network
learners run whole iterations of ``batch`` self-play games. Both count in episodes (a network
learner's episodes are its self-play games), so the driver treats them alike.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

from tttlab.agents import Agent
from tttlab.agents.learned import LearnedAgent
from tttlab.agents.network import NetworkAgent
from tttlab.errors import AgentError, ConfigError, TttlabError
from tttlab.game import Geometry, Player, StateSpaceTooLarge, check_enumerable
from tttlab.hyperparameters import (
    NETWORK_LEARNERS,
    check_learner,
    check_options,
)
from tttlab.io import FileAgent, load_agent_file, resolve_agent, save_agent
from tttlab.learners import (
    TrainConfig,
    Trainer,
    config_from_checkpoint,
    config_from_options,
)

__all__ = [
    "NetworkRun",
    "Run",
    "TableRun",
    "check_config",
    "default_episodes",
    "resume",
    "start",
]


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def table_batch(episodes: int) -> int:
    """Episodes per compiled batch: progress and evaluation happen between batches."""
    return max(1_000, min(100_000, episodes // 100))


class Run(ABC):
    """One learner's training, counted in episodes, with its configuration fixed."""

    algorithm: str
    geometry: Geometry
    seed: int
    #: What an episode is, for people: "episodes" or "self-play games".
    unit: str
    #: The episode a resumed run started from (None for a fresh run).
    resumed_from: int | None = None

    @property
    @abstractmethod
    def total(self) -> int:
        """Episodes in all."""

    @property
    @abstractmethod
    def done(self) -> int:
        """Episodes so far."""

    @property
    def remaining(self) -> int:
        return self.total - self.done

    @property
    @abstractmethod
    def step(self) -> int:
        """Episodes the driver should ask for at a time (at most)."""

    @property
    @abstractmethod
    def seats(self) -> tuple[Player, ...]:
        """The seats that learn."""

    @abstractmethod
    def header(self) -> dict[str, Any]:
        """The hyperparameters, as the agent file and ``ttt train --json`` show them."""

    @abstractmethod
    def advance(self, episodes: int) -> dict[str, float]:
        """Train for up to ``episodes`` (a network learner: whole iterations, at least one);
        returns the latest metrics (loss, epsilon, ...)."""

    @abstractmethod
    def agent(self, label: str = "") -> FileAgent:
        """The agent as it plays now."""

    @abstractmethod
    def _checkpoint(self) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """What resuming needs: header fields, and arrays of training state (or None)."""

    def save(self, path: Path, *, checkpoint: bool = False) -> Path:
        """Write the agent file (atomically); with ``checkpoint``, everything needed to
        resume exactly."""
        data, state = self._checkpoint() if checkpoint else (None, None)
        return save_agent(
            path,
            self.agent(label=path.name),
            episodes=self.done,
            seed=self.seed,
            hyperparameters=self.header(),
            checkpoint=data,
            state=state,
        )


class TableRun(Run):
    """A tabular learner (:class:`tttlab.learners.Trainer`)."""

    unit = "episodes"

    def __init__(self, config: TrainConfig, opponent: Agent | None = None) -> None:
        self.trainer = Trainer(config, opponent)
        self.config = config
        self.algorithm = config.algorithm
        self.geometry = config.geometry
        self.seed = config.seed

    @property
    def total(self) -> int:
        return self.config.episodes

    @property
    def done(self) -> int:
        return self.trainer.done

    @property
    def step(self) -> int:
        return table_batch(self.config.episodes)

    @property
    def seats(self) -> tuple[Player, ...]:
        return self.trainer.seats

    def header(self) -> dict[str, Any]:
        return self.config.header()

    def advance(self, episodes: int) -> dict[str, float]:
        self.trainer.run(episodes)
        return {}

    def agent(self, label: str = "") -> LearnedAgent:
        return self.trainer.agent(label=label)

    def _checkpoint(self) -> tuple[dict[str, Any], dict[str, Any] | None]:
        return self.trainer.checkpoint(), None


class NetworkRun(Run):
    """A network learner (``tttlab.neural``: AlphaZero or DQN)."""

    unit = "self-play games"

    def __init__(self, algorithm: str, trainer: Any) -> None:
        self.trainer = trainer
        self.config = trainer.config
        self.algorithm = algorithm
        self.geometry = self.config.geometry
        self.seed = self.config.seed

    @property
    def total(self) -> int:
        return int(self.config.iterations * self.config.games_per_iteration)

    @property
    def done(self) -> int:
        return int(self.trainer.done)

    @property
    def step(self) -> int:
        return int(self.config.games_per_iteration)

    @property
    def seats(self) -> tuple[Player, ...]:
        return (Player.X, Player.O)

    def header(self) -> dict[str, Any]:
        header: dict[str, Any] = self.config.header()
        return header

    def advance(self, episodes: int) -> dict[str, float]:
        metrics: dict[str, float] = self.trainer.run(max(1, episodes // self.step))
        return metrics

    def agent(self, label: str = "") -> NetworkAgent:
        agent: NetworkAgent = self.trainer.agent(label=label)
        return agent

    def _checkpoint(self) -> tuple[dict[str, Any], dict[str, Any] | None]:
        data = {"iteration": self.trainer.iteration, "episodes": self.config.episodes}
        return data, self.trainer.checkpoint_arrays()


_NETWORK_CLASSES = {
    "alphazero": ("AlphaZeroConfig", "AlphaZeroTrainer"),
    "dqn": ("DQNConfig", "DQNTrainer"),
    "ppo": ("PPOConfig", "PPOTrainer"),
}


def _extra(name: str) -> set[str]:
    """The distributions of tttlab's optional extra ``name`` (normalised names)."""
    try:
        requirements = importlib.metadata.requires("tttlab") or []
    except importlib.metadata.PackageNotFoundError:
        return set()
    found = set()
    for requirement in requirements:
        if f'extra == "{name}"' in requirement.replace("'", '"'):
            head = re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0]
            found.add(head.lower().replace("-", "_"))
    return found


def _neural(algorithm: str) -> tuple[Any, Any]:
    """(config class, trainer class) of a network learner, or one line saying how to install
    the extra. JAX is imported here, only when a network learner is asked for."""
    try:
        module = importlib.import_module(f"tttlab.neural.{algorithm}")
    except ImportError as error:
        missing = (error.name or "").partition(".")[0].lower().replace("-", "_")
        if missing and missing in _extra("neural"):
            raise ConfigError(
                f"network learners need the neural extra ({error.name} is missing): "
                "pip install 'tttlab[neural]'"
            ) from None
        raise ConfigError(
            f"the {algorithm} learner cannot be loaded: {type(error).__name__}: {error}"
        ) from None
    config, trainer = _NETWORK_CLASSES[algorithm]
    return getattr(module, config), getattr(module, trainer)


def default_episodes(learner: str, cells: int) -> int:
    """Episodes (self-play games for networks) when none are given: what the documented
    figures use."""
    if learner == "alphazero":
        if cells <= 9:
            return 32768  # 5 of 5 seeds play perfectly (benchmarks/bench_network.py)
        return 524288 if cells <= 16 else 262144
    if learner == "dqn":
        return 65536 if cells <= 9 else 1 << 20
    if learner == "ppo":
        return 262144 if cells <= 9 else 1 << 20  # 3x3: 10 of 10 seeds perfect, 17 s each
    return 200_000


def check_config(
    algorithm: str,
    geometry: Geometry,
    episodes: int,
    seed: int,
    hyperparameters: dict[str, Any],
) -> None:
    """Refuse, in one line, a configuration that :func:`start` would refuse, without
    building anything (``ttt sweep`` checks every configuration before the first run)."""
    options = check_options(check_learner(algorithm), hyperparameters)
    if algorithm in NETWORK_LEARNERS:
        config_class, _ = _neural(algorithm)
        config_class.from_options(geometry, episodes, seed, options)
    else:
        config_from_options(algorithm, episodes, seed, geometry, options)


def start(
    algorithm: str,
    geometry: Geometry,
    episodes: int | None = None,
    seed: int = 0,
    hyperparameters: dict[str, Any] | None = None,
    *,
    opponent: str | None = None,
    side: Player | None = None,
    opponent_agent: Agent | None = None,
) -> Run:
    """A fresh run of ``algorithm`` with ``ttt train``'s defaults: ``episodes`` (default
    :func:`default_episodes`), hyperparameters by name (checked
    against their one declaration), and for table learners optionally a fixed ``opponent``
    (a name or file, or an agent already loaded) that ``side`` learns against."""
    options = check_options(check_learner(algorithm), hyperparameters or {})
    if episodes is None:
        episodes = default_episodes(algorithm, geometry.cells)
    if algorithm in NETWORK_LEARNERS:
        if opponent is not None or side is not None:
            raise ConfigError(f"{algorithm} learns by self-play: --opponent and --as do not apply")
        config_class, trainer_class = _neural(algorithm)
        config = config_class.from_options(geometry, episodes, seed, options)
        return NetworkRun(algorithm, trainer_class(config))
    try:
        check_enumerable(geometry)
    except StateSpaceTooLarge as error:
        raise ConfigError(f"cannot train a full table on {geometry.name}: {error}") from None
    if side is not None and opponent is None:
        raise ConfigError("--as needs --opponent (self-play trains both seats)")
    seat = None if opponent is None else (side or Player.X)
    config = config_from_options(
        algorithm, episodes, seed, geometry, options, seat=seat, opponent=opponent
    )
    fixed = opponent_agent
    if opponent is not None and fixed is None:
        fixed = resolve_agent(opponent, geometry)
    return TableRun(config, fixed)


def resume(path: Path, algorithm: str, opponent_agent: Agent | None = None) -> Run:
    """The run saved in the checkpoint ``path``, ready to continue where it stopped: the
    result equals an uninterrupted run's."""
    agent = load_agent_file(path)
    data = agent.meta.get("checkpoint")
    if not isinstance(data, dict):
        raise AgentError(f"{path} is an agent file but not a checkpoint")
    if agent.algorithm != algorithm:
        raise ConfigError(
            f"{path} is not {_article(algorithm)} checkpoint (it holds {agent.algorithm})"
        )
    run: Run
    try:
        if isinstance(agent, NetworkAgent):
            config_class, trainer_class = _neural(algorithm)
            config = config_class.from_header(
                agent.geometry,
                int(data["episodes"]),
                int(agent.meta["seed"]),
                agent.meta["hyperparameters"],
            )
            trainer = trainer_class(config)
            trainer.restore(dict(agent.meta.get("state", {})), int(data["iteration"]))
            run = NetworkRun(algorithm, trainer)
        else:
            table_config = config_from_checkpoint(data)
            fixed = opponent_agent
            if table_config.opponent is not None and fixed is None:
                fixed = resolve_agent(table_config.opponent, table_config.geometry)
            table_run = TableRun(table_config, fixed)
            table_run.trainer.restore(agent.tables, int(data["done"]), dict(data["rng_state"]))
            run = table_run
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
    except TttlabError:
        raise
    except (KeyError, TypeError, ValueError) as error:
        raise ConfigError(f"{path}: a damaged checkpoint ({error})") from None
    run.resumed_from = run.done
    return run
