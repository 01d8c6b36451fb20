"""The Python API: what the ``ttt`` commands do, as functions and values for notebooks.

>>> import tttlab
>>> tttlab.solve("3x3").value
0
>>> agent = tttlab.train("q", episodes=20_000, seed=0, progress=False)
>>> tttlab.evaluate(agent).X.worst_case
0

The names and meanings are the CLI's and its JSON's: ``to_dict()`` of each result is exactly
what the matching command prints with ``--json``, and the commands call these functions.
Bad input raises a :class:`TttlabError` (a ``ValueError``) or a :class:`TttlabTypeError`
(a ``TypeError``) with a one-line message; every error class of tttlab's own (``ConfigError``,
``GeometryError``, ``AgentError`` ...) is a ``ValueError`` too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from tttlab.agents import Agent
from tttlab.agents.base import policy_matrix
from tttlab.agents.learned import LearnedAgent
from tttlab.agents.network import NetworkAgent
from tttlab.evaluate import SeatReport, round_robin, sampled_evaluation
from tttlab.evaluate import evaluate as _evaluate_seats
from tttlab.evaluate.arena import Pairing, Standing
from tttlab.game import (
    DEFAULT,
    Geometry,
    Player,
    Position,
    StateSpaceTooLarge,
    check_enumerable,
    estimate_positions,
    state_space,
)
from tttlab.io import check_board, file_agent, is_builtin, resolve_agent, save_agent_file
from tttlab.solve.summary import search_summary, table_summary
from tttlab.train import Trainer, config_from_options

__all__ = [
    "EVAL_LIMIT",
    "MDP_LIMIT",
    "ArenaResult",
    "Evaluation",
    "MDPResult",
    "SolveResult",
    "TrainedAgent",
    "TttlabError",
    "TttlabTypeError",
    "arena",
    "curve_point",
    "evaluate",
    "load",
    "mdp",
    "solve",
    "train",
    "uses_table",
]

#: Exact evaluation after training (and for curves) on boards up to this many positions;
#: beyond, curves judge sampled games with the exact proof search.
EVAL_LIMIT = 2_000_000
#: MDPs are built on boards with at most this many positions.
MDP_LIMIT = 2_000_000
SAMPLED_GAMES = 200


class TttlabError(ValueError):
    """Bad input to the Python API (a value that cannot be used)."""


class TttlabTypeError(TypeError):
    """An argument of the wrong type given to the Python API."""


def _geometry(board: Geometry | str | None, k: int | None = None) -> Geometry:
    if board is None:
        board = DEFAULT
    if isinstance(board, Geometry):
        geometry = board
    elif isinstance(board, str):
        geometry = Geometry.parse(board)
    else:
        raise TttlabTypeError(f"board must be a name like '4x4k4' or a Geometry, not {board!r}")
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, int):
            raise TttlabTypeError(f"k must be an integer, not {k!r}")
        geometry = Geometry(geometry.rows, geometry.cols, k)
    return geometry


def _seat(value: Any, label: str = "seat") -> Player:
    if isinstance(value, Player):
        return value
    if not isinstance(value, str):
        raise TttlabTypeError(f"{label} must be 'X' or 'O', not {value!r}")
    try:
        return Player.parse(value)
    except ValueError:
        raise TttlabError(f"{label} must be 'X' or 'O', got {value!r}") from None


def _whole(value: Any, label: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TttlabTypeError(f"{label} must be a whole number, not {value!r}")
    if value < minimum:
        raise TttlabError(f"{label} must be at least {minimum}, got {value}")
    return int(value)


# ----- agents -----------------------------------------------------------------------------


class TrainedAgent(LearnedAgent):
    """A learned agent as the API hands it out: it can save itself, shows its exact
    evaluation in a notebook, and carries its learning curve when one was asked for."""

    curve: Curve | None = None
    training: dict[str, Any] | None = None

    @classmethod
    def wrap(cls, agent: LearnedAgent) -> TrainedAgent:
        if isinstance(agent, TrainedAgent):
            return agent
        return cls(
            agent.algorithm,
            agent.geometry,
            agent.seats,
            agent.tables,
            agent.meta,
            agent.label,
            agent.symmetric,
        )

    def save(self, path: str | Path) -> Path:
        """Write the agent file (atomically; no pickle), as ``ttt train --out`` does."""
        meta = dict(self.meta)
        hyper = meta.get("hyperparameters")
        if not isinstance(hyper, dict):
            hyper = {k: v for k, v in meta.items() if k not in ("episodes", "seed")}
        return save_agent_file(
            path,
            self,
            episodes=int(meta.get("episodes", 0)),
            seed=int(meta.get("seed", 0)),
            hyperparameters=hyper,
        )

    def evaluation(self) -> Evaluation:
        """The exact evaluation (computed once)."""
        cached = self.__dict__.get("_evaluation")
        if cached is None:
            cached = evaluate(self)
            self.__dict__["_evaluation"] = cached
        return cached

    def _repr_html_(self) -> str:
        from tttlab.api.display import agent_html

        return agent_html(self)


@dataclass(eq=False)
class LoadedNetworkAgent(NetworkAgent):
    """A network agent as :func:`load` hands it out: it shows its exact evaluation in a
    notebook, like a table agent."""

    @classmethod
    def wrap(cls, agent: NetworkAgent) -> LoadedNetworkAgent:
        if isinstance(agent, LoadedNetworkAgent):
            return agent
        return cls(**{f.name: getattr(agent, f.name) for f in fields(NetworkAgent)})

    def _repr_html_(self) -> str:
        from tttlab.api.display import evaluation_html, network_intro_html

        intro = network_intro_html(self)
        if not state_space_fits(self.geometry):
            return intro
        return intro + evaluation_html(evaluate(self))


def load(agent: str | Path, board: Geometry | str | None = None) -> Agent:
    """An agent by built-in name (``random``, ``perfect``, ``minimax``, ``mcts:500``) or from
    an agent file; a file decides the board unless ``board`` is given."""
    if not isinstance(agent, (str, Path)):
        raise TttlabTypeError(f"agent must be a name or a path, not {agent!r}")
    geometry = None if board is None else _geometry(board)
    spec = str(agent)
    if is_builtin(spec):
        return resolve_agent(spec, geometry)
    found = file_agent(spec, geometry)
    if isinstance(found, LearnedAgent):
        return TrainedAgent.wrap(found)
    if isinstance(found, NetworkAgent):
        return LoadedNetworkAgent.wrap(found)
    return found


def _agent(agent: Agent | str | Path, geometry: Geometry | None) -> tuple[Agent, Geometry]:
    """An agent object (names and paths loaded), and the board it plays."""
    if isinstance(agent, (str, Path)):
        loaded = load(agent, geometry)
    elif hasattr(agent, "select_move") and hasattr(agent, "name"):
        loaded = agent
    else:
        raise TttlabTypeError(f"not an agent, an agent name or a path: {agent!r}")
    own = getattr(loaded, "geometry", None)
    if geometry is None:
        geometry = own if isinstance(own, Geometry) else DEFAULT
    elif isinstance(own, Geometry):
        check_board(own, getattr(loaded, "name", "agent"), geometry)
    return loaded, geometry


# ----- evaluation -------------------------------------------------------------------------


@dataclass(frozen=True)
class Evaluation:
    """Exact metrics per seat, as ``ttt eval --json`` prints them (see ``SeatReport``).

    ``X`` or ``O`` is ``None`` for a seat the agent does not play."""

    board: str
    agent: str
    X: SeatReport | None
    O: SeatReport | None

    def to_dict(self) -> dict[str, Any]:
        """Exactly the JSON of ``ttt eval --json``."""
        return {seat: r.as_json() for seat, r in (("X", self.X), ("O", self.O)) if r is not None}

    @property
    def unbeatable(self) -> bool:
        """Worst case 0 or better on every seat evaluated."""
        return all(r.worst_case >= 0 for r in (self.X, self.O) if r is not None)

    def _repr_html_(self) -> str:
        from tttlab.api.display import evaluation_html

        return evaluation_html(self)


def evaluate(
    agent: Agent | str | Path,
    board: Geometry | str | None = None,
    seat: str | Player | None = None,
) -> Evaluation:
    """Evaluate an agent exactly, over the whole game graph: ``ttt eval``."""
    geometry = None if board is None else _geometry(board)
    player, geometry = _agent(agent, geometry)
    seats = None if seat is None else (_seat(seat),)
    check_enumerable(geometry)
    space = state_space(geometry)
    if space.size > EVAL_LIMIT * 6:
        raise TttlabError(f"{geometry.name} is too big to evaluate exactly")
    reports = _evaluate_seats(player, geometry, seats)
    return Evaluation(geometry.name, player.name, reports.get("X"), reports.get("O"))


# ----- training ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Curve:
    """A learning curve: the exact metrics at each evaluation point (``--log`` records)."""

    title: str
    records: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    def to_list(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.records]

    def plot(self, path: str | Path) -> Path:
        """Draw the curve to a PNG, as ``--curve`` does."""
        from tttlab.evaluate.curves import plot_curve

        plot_curve(list(self.records), path, self.title)
        return Path(path)

    def _repr_png_(self) -> bytes:
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            return self.plot(Path(folder) / "curve.png").read_bytes()


def curve_point(trainer: Trainer, episode: int) -> dict[str, Any]:
    """Exact metrics over the whole game graph where it fits; on bigger boards, 200 games
    against random per seat, each decision judged by the exact proof search."""
    config = trainer.config
    return agent_point(trainer.agent(), config.geometry, trainer.seats, config.seed, episode)


def agent_point(
    agent: Agent, geometry: Geometry, seats: Sequence[Player], seed: int, episode: int
) -> dict[str, Any]:
    """One point of a learning curve for ``agent`` (see :func:`curve_point`)."""
    if state_space_fits(geometry):
        reports = _evaluate_seats(agent, geometry, tuple(seats))
        return {"episode": episode, **{seat: r.as_json() for seat, r in reports.items()}}
    rng = np.random.default_rng([seed, episode])
    sampled = {
        side.name: sampled_evaluation(agent, geometry, side, SAMPLED_GAMES, rng).as_json()
        for side in seats
    }
    return {"episode": episode, "sampled": True, **sampled}


def state_space_fits(geometry: Geometry) -> bool:
    """Whether a board's whole game graph is small enough for exact curve points."""
    try:
        check_enumerable(geometry)
    except StateSpaceTooLarge:
        return False
    return state_space(geometry).size <= EVAL_LIMIT


def batch_size(episodes: int) -> int:
    """Episodes per compiled batch: progress and evaluation happen between batches."""
    return max(1_000, min(100_000, episodes // 100))


def train(
    algorithm: str,
    board: Geometry | str | None = "3x3",
    episodes: int = 200_000,
    seed: int = 0,
    *,
    curve: bool = False,
    eval_every: int | None = None,
    opponent: str | None = None,
    side: str | None = None,
    progress: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
    **hyperparameters: Any,
) -> TrainedAgent:
    """Train a table learner with ``ttt train``'s defaults: the same configuration, the
    same kernels and, for the same seed, the same tables.

    Hyperparameters by their option names, with ``_`` for ``-``: ``epsilon``,
    ``epsilon_end``, ``epsilon_schedule``, ``alpha``, ``alpha_end``, ``alpha_schedule``,
    ``gamma``, ``draw_reward``. ``curve=True`` evaluates exactly every ``eval_every`` episodes
    (default: 20 points) and leaves the curve in ``agent.curve``. ``opponent`` (a name or file)
    with ``side`` trains one seat against a fixed agent.
    """
    if not isinstance(algorithm, str):
        raise TttlabTypeError(f"algorithm must be a name, not {algorithm!r}")
    episodes = _whole(episodes, "episodes", 1)
    seed = _whole(seed, "seed", 0)
    if eval_every is not None:
        eval_every = _whole(eval_every, "eval_every", 1)
    geometry = _geometry(board)
    try:
        check_enumerable(geometry)
    except StateSpaceTooLarge as error:
        raise TttlabError(f"cannot train a full table on {geometry.name}: {error}") from None
    if side is not None and opponent is None:
        raise TttlabError("side needs an opponent (self-play trains both seats)")
    seat = None if opponent is None else _seat(side or "X", "side")
    config = config_from_options(
        algorithm, episodes, seed, geometry, hyperparameters, seat=seat, opponent=opponent
    )
    fixed = None
    if opponent is not None:
        fixed, _ = _agent(opponent, geometry)
    trainer = Trainer(config, fixed)
    every = eval_every or max(1, episodes // 20)
    records: list[dict[str, Any]] = [curve_point(trainer, 0)] if curve else []
    started = time.perf_counter()
    bar = _progress_bar(algorithm, episodes) if progress else None
    try:
        while trainer.remaining > 0:
            step = min(trainer.remaining, batch_size(episodes), every - trainer.done % every)
            trainer.run(step)
            if curve and (trainer.done % every == 0 or trainer.remaining == 0):
                records.append(curve_point(trainer, trainer.done))
            if bar is not None:
                bar(trainer.done)
            if on_progress is not None:
                on_progress(trainer.done, episodes)
    finally:
        if bar is not None:
            bar(None)
    seconds = time.perf_counter() - started
    agent = TrainedAgent.wrap(trainer.agent(label=algorithm))
    agent.meta = {**agent.meta, "seed": seed, "hyperparameters": config.header()}
    agent.training = {
        "algorithm": algorithm,
        "board": geometry.name,
        "episodes": trainer.done,
        "seed": seed,
        "seconds": round(seconds, 3),
        "hyperparameters": config.header(),
    }
    if curve:
        agent.curve = Curve(f"{algorithm} on {geometry.name}, seed {seed}", tuple(records))
    return agent


def _progress_bar(label: str, total: int) -> Callable[[int | None], None]:
    """A rich progress bar (it renders in terminals and in Jupyter); call with the episodes
    done, and with ``None`` to close it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress(
        "[bold]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()
    )
    task = bar.add_task(label, total=total)
    bar.start()

    def update(done: int | None) -> None:
        if done is None:
            bar.stop()
        else:
            bar.update(task, completed=done)

    return update


# ----- solving ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SolveResult:
    """What ``ttt solve --json`` prints, as attributes (``to_dict()`` gives the JSON)."""

    data: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.data[name]
        except KeyError:
            raise AttributeError(name) from None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.data)

    def _repr_html_(self) -> str:
        from tttlab.api.display import mapping_html

        return mapping_html(f"Solved {self.data['board']}", self.data)


#: ``solve`` builds the full table up to this many candidate positions, else it searches.
TABLE_SOLVE_LIMIT = 1_000_000


def uses_table(geometry: Geometry, method: str = "auto") -> bool:
    """Whether ``solve`` (and ``ttt solve``) takes the full table for this board and method."""
    if method not in ("auto", "table", "search"):
        raise TttlabError(f"method must be auto, table or search, got {method!r}")
    return method == "table" or (
        method == "auto" and estimate_positions(geometry) <= TABLE_SOLVE_LIMIT
    )


def solve(board: Geometry | str | None = "3x3", method: str = "auto") -> SolveResult:
    """The exact value of a board: from the full table (``method="table"``, with every
    count) or by the compiled proof search (``"search"``); ``"auto"`` picks the table up to
    a million candidate positions. ``ttt solve --json``."""
    geometry = _geometry(board)
    if uses_table(geometry, method):
        check_enumerable(geometry)
        return SolveResult(table_summary(geometry))
    return SolveResult(search_summary(geometry))


# ----- the arena --------------------------------------------------------------------------


@dataclass(frozen=True)
class ArenaResult:
    """A round robin's results: ``to_dict()`` is ``ttt arena --json``."""

    board: str
    games: int
    seed: int
    pairings: tuple[Pairing, ...]
    standings: dict[str, Standing]

    def to_dict(self) -> dict[str, Any]:
        return {
            "board": self.board,
            "games": self.games,
            "seed": self.seed,
            "pairings": [p.as_json() for p in self.pairings],
            "standings": {
                name: {
                    "win": s.win,
                    "draw": s.draw,
                    "loss": s.loss,
                    "points": s.points,
                    "as_x": dict(zip(("win", "draw", "loss"), s.by_side["X"], strict=True)),
                    "as_o": dict(zip(("win", "draw", "loss"), s.by_side["O"], strict=True)),
                }
                for name, s in self.standings.items()
            },
        }

    def _repr_html_(self) -> str:
        from tttlab.api.display import arena_html

        return arena_html(self)


def arena(
    agents: Sequence[Agent | str | Path],
    board: Geometry | str | None = None,
    games: int = 100,
    seed: int = 0,
    names: Sequence[str] | None = None,
) -> ArenaResult:
    """A round robin: every pair plays ``games`` games on each side. ``ttt arena``."""
    if isinstance(agents, (str, Path)) or not isinstance(agents, Sequence):
        raise TttlabTypeError("agents must be a list of agents, names or paths")
    if len(agents) < 2:
        raise TttlabError("an arena needs at least two agents")
    games = _whole(games, "games", 1)
    seed = _whole(seed, "seed", 0)
    geometry = None if board is None else _geometry(board)
    # Files are read once, here; built-in names wait for the board.
    given = [
        load(a, geometry) if isinstance(a, (str, Path)) and not is_builtin(str(a)) else a
        for a in agents
    ]
    if geometry is None:  # the first agent with a board of its own decides
        boards = (getattr(a, "geometry", None) for a in given)
        geometry = next((g for g in boards if isinstance(g, Geometry)), DEFAULT)
    players = [_agent(a, geometry)[0] for a in given]
    labels = list(names) if names is not None else _labels(agents, players)
    pairings, standings = round_robin(players, geometry, games, np.random.default_rng(seed), labels)
    return ArenaResult(geometry.name, games, seed, tuple(pairings), standings)


def _labels(specs: Sequence[Agent | str | Path], players: Sequence[Agent]) -> list[str]:
    seen: dict[str, int] = {}
    labels = []
    for spec, player in zip(specs, players, strict=True):
        base = str(spec) if isinstance(spec, (str, Path)) else player.name
        seen[base] = seen.get(base, 0) + 1
        labels.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return labels


# ----- the MDP ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MDPResult:
    """The game against a fixed opponent as a solved MDP: ``P`` (one sparse matrix per
    action), ``R``, the values and the policy; ``to_dict()`` is ``ttt solve --mdp --json``."""

    summary: dict[str, Any]
    mdp: Any  # tttlab.mdp.MDP
    solution: Any  # tttlab.mdp.MDPSolution

    @property
    def P(self) -> Any:  # noqa: N802 - the textbook name
        return self.mdp.P

    @property
    def R(self) -> Any:  # noqa: N802 - the textbook name
        return self.mdp.R

    @property
    def value(self) -> float:
        return float(self.summary["value"])

    def agent(self) -> TrainedAgent:
        """The optimal policy as an agent (``ttt solve --mdp --out``)."""
        from tttlab.mdp import mdp_agent

        header = {k: self.summary[k] for k in ("method", "gamma", "rewards", "seat", "opponent")}
        header["soft_constraint"] = self.summary["soft_constraint"]
        return TrainedAgent.wrap(mdp_agent(self.mdp, self.solution, {"hyperparameters": header}))

    def to_dict(self) -> dict[str, Any]:
        return dict(self.summary)

    def _repr_html_(self) -> str:
        from tttlab.api.display import mapping_html

        return mapping_html("MDP", self.summary)


def mdp(
    seat: str | Player = "X",
    opponent: Agent | str = "random",
    board: Geometry | str | None = "3x3",
    method: str = "vi",
    gamma: float = 1.0,
    rewards: str = "standard",
    soft_constraint: bool = False,
    tol: float = 1e-12,
) -> MDPResult:
    """Build and solve the game for ``seat`` against a fixed ``opponent`` as an MDP, by value
    iteration (``"vi"``) or policy iteration (``"pi"``). ``ttt solve --mdp``."""
    from tttlab.mdp import build_mdp, policy_iteration, value_iteration

    geometry = _geometry(board)
    player = _seat(seat)
    if method not in ("vi", "pi"):
        raise TttlabError(f"method must be vi or pi, got {method!r}")
    if rewards not in ("standard", "time-greedy"):
        raise TttlabError(f"rewards must be standard or time-greedy, got {rewards!r}")
    for label, v in (("gamma", gamma), ("tol", tol)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TttlabTypeError(f"{label} must be a number, not {v!r}")
    if not (0.0 < gamma <= 1.0):
        raise TttlabError(f"gamma must be within (0, 1], got {gamma}")
    if not (np.isfinite(tol) and tol > 0):
        raise TttlabError(f"tol must be a positive number, got {tol}")
    fixed, geometry = _agent(opponent, geometry)
    space = state_space(geometry)
    if space.size > MDP_LIMIT:
        raise TttlabError(
            f"MDPs are limited to boards of {MDP_LIMIT:,} positions; "
            f"{geometry.name} has {space.size:,}"
        )
    started = time.perf_counter()
    table = policy_matrix(fixed, space, player.other)
    built = build_mdp(space, player, table, rewards=rewards, soft_constraint=soft_constraint)  # type: ignore[arg-type]
    solution = (
        value_iteration(built, gamma, tol) if method == "vi" else policy_iteration(built, gamma)
    )
    summary: dict[str, Any] = {
        "board": geometry.name,
        "seat": player.name,
        "opponent": opponent if isinstance(opponent, str) else fixed.name,
        "method": method,
        "gamma": gamma,
        "rewards": rewards,
        "soft_constraint": soft_constraint,
        "value": solution.value(built),
        "states": built.n_states,
        "decision_states": built.n_states - 3,
        "symmetric": built.symmetric,
        "iterations": solution.iterations,
        "residual": solution.residual,
        "seconds": round(time.perf_counter() - started, 3),
    }
    return MDPResult(summary, built, solution)


def position(text: str, board: Geometry | str | None = None) -> Position:
    """A position from its string (``"X.O/.X./..O"``), checked to be reachable."""
    if not isinstance(text, str):
        raise TttlabTypeError(f"a position is a string like 'X.O/.X./..O', not {text!r}")
    geometry = None if board is None else _geometry(board)
    return Position.from_string(text) if geometry is None else Position.from_string(text, geometry)
