"""The API's functions: what the ``ttt`` commands do, with the same names, defaults and
figures (the commands call them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from tttlab.agents import Agent
from tttlab.agents.base import policy_matrix
from tttlab.agents.network import NetworkAgent
from tttlab.api.agents import TrainedAgent, TrainedNetwork, load, trained
from tttlab.api.checks import as_agent, geometry_of, seat_of, space_within, whole
from tttlab.api.results import ArenaResult, Curve, MDPResult, SolveResult
from tttlab.errors import ConfigError, TttlabError, TttlabTypeError
from tttlab.evaluation import round_robin
from tttlab.game import (
    DEFAULT,
    Geometry,
    Player,
    Position,
    check_enumerable,
    estimate_positions,
)
from tttlab.hyperparameters import check_learner
from tttlab.io import is_builtin
from tttlab.limits import MDP_POSITIONS, TABLE_SOLVE_CANDIDATES
from tttlab.solvers.bitboard import SearchProgress
from tttlab.solvers.summary import search_summary, table_summary
from tttlab.training import Callback, ConsoleProgress, Watcher, drive, start

if TYPE_CHECKING:
    from tttlab.agents.learned import LearnedAgent

__all__ = ["arena", "mdp", "position", "solve", "train", "uses_table"]

TableLearner = Literal["td", "q", "sarsa", "expected-sarsa", "double-q"]
NetworkLearner = Literal["alphazero", "dqn", "ppo"]


# The overloads give the result's type from the learner's name; the parameters are the
# implementation's (below), checked when it is called.
@overload
def train(algorithm: TableLearner, *args: Any, **options: Any) -> TrainedAgent: ...
@overload
def train(algorithm: NetworkLearner, *args: Any, **options: Any) -> TrainedNetwork: ...
@overload
def train(algorithm: str, *args: Any, **options: Any) -> TrainedAgent | TrainedNetwork: ...


def train(
    algorithm: str,
    board: Geometry | str | None = "3x3",
    episodes: int | None = None,
    seed: int = 0,
    *,
    curve: bool = False,
    eval_every: int | None = None,
    opponent: str | Path | Agent | None = None,
    side: str | None = None,
    progress: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
    **hyperparameters: Any,
) -> TrainedAgent | TrainedNetwork:
    """Train any learner with ``ttt train``'s defaults, through the same driver: the same
    configuration, the same kernels or networks and, for the same seed, the same file.

    Hyperparameters go by their option names with ``_`` for ``-`` (``epsilon``,
    ``alpha_end``, ``draw_reward``, ``simulations``, ``hidden=(64, 64)`` ...; see
    :mod:`tttlab.hyperparameters`). ``episodes`` defaults to 200,000 for the tables and to
    the budgets the documentation's figures use for the networks. ``curve=True`` evaluates
    exactly every ``eval_every`` episodes (default: 20 points) and leaves the curve in
    ``agent.curve``. ``opponent`` (a name, file or agent) with ``side`` trains one seat of a
    table learner against a fixed agent. Ctrl-C stops at the end of a batch and returns what
    was learned (``agent.training["interrupted"]`` is then true).

    Examples:
        >>> import tttlab
        >>> agent = tttlab.train("q", episodes=20_000, seed=0, progress=False)
        >>> agent.evaluation().unbeatable
        True
        >>> tttlab.train("td", gamma=0.9)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tttlab.errors.ConfigError: --gamma does not apply to td ...
    """
    check_learner(algorithm)
    if episodes is not None:
        episodes = whole(episodes, "episodes", 1)
    seed = whole(seed, "seed", 0)
    if eval_every is not None:
        eval_every = whole(eval_every, "eval_every", 1)
    geometry = geometry_of(board)
    if side is not None and opponent is None:
        raise ConfigError("side needs an opponent (self-play trains both seats)")
    seat = None if opponent is None else seat_of(side or "X", "side")
    fixed: Agent | None = None
    label: str | None = None
    if opponent is not None:
        fixed = as_agent(opponent, geometry)[0]
        label = str(opponent) if isinstance(opponent, (str, Path)) else fixed.name
    run = start(
        algorithm,
        geometry,
        episodes,
        seed,
        hyperparameters,
        opponent=label,
        side=seat,
        opponent_agent=fixed,
    )
    watchers: list[Watcher] = [ConsoleProgress()] if progress else []
    if on_progress is not None:
        watchers.append(Callback(on_progress))
    result = drive(run, eval_every=eval_every, points=curve, watchers=watchers, judge=False)
    learned: LearnedAgent | NetworkAgent = result.agent  # type: ignore[assignment]
    agent = trained(learned)
    agent.meta = {**agent.meta, "episodes": run.done, "seed": seed, "hyperparameters": run.header()}
    agent.training = {**result.summary, "interrupted": result.interrupted}
    if curve:
        title = f"{algorithm} on {geometry.name}, seed {seed}"
        agent.curve = Curve(title, tuple(result.records))
    return agent


def uses_table(geometry: Geometry, method: str = "auto") -> bool:
    """Whether ``solve`` (and ``ttt solve``) takes the full table for this board and method."""
    if method not in ("auto", "table", "search"):
        raise TttlabError(f"method must be auto, table or search, got {method!r}")
    return method == "table" or (
        method == "auto" and estimate_positions(geometry) <= TABLE_SOLVE_CANDIDATES
    )


def solve(
    board: Geometry | str | None = "3x3",
    method: str = "auto",
    *,
    time_limit: float | None = None,
    memory_mb: int | None = None,
    progress: Callable[[SearchProgress], None] | None = None,
) -> SolveResult:
    """The exact value of a board: from the full table (``method="table"``, with every
    count) or by the compiled proof search (``"search"``); ``"auto"`` picks the table up to
    a million candidate positions. ``ttt solve --json``. The search stops after
    ``time_limit`` seconds (:class:`tttlab.solvers.bitboard.SearchStopped`) and keeps its
    table within ``memory_mb`` MiB; ``progress`` hears from it about once a second.

    Examples:
        >>> import tttlab
        >>> result = tttlab.solve("3x3")
        >>> result.value, result.positions, result.method
        (0, 5478, 'table')
        >>> tttlab.solve("4x4k4").method
        'search'
        >>> win = tttlab.solve("6x5k4", memory_mb=64)  # 30 cells: a win, and its first move
        >>> win.value, win.best_move is not None
        (1, True)
    """
    geometry = geometry_of(board, search=True)
    if uses_table(geometry, method):
        check_enumerable(geometry)
        return SolveResult.from_dict(table_summary(geometry))
    return SolveResult.from_dict(search_summary(geometry, time_limit, memory_mb, progress))


def arena(
    agents: Sequence[Agent | str | Path],
    board: Geometry | str | None = None,
    games: int = 100,
    seed: int = 0,
    names: Sequence[str] | None = None,
) -> ArenaResult:
    """A round robin: every pair plays ``games`` games on each side. ``ttt arena``.

    Examples:
        >>> import tttlab
        >>> result = tttlab.arena(["perfect", "random"], games=10, seed=0)
        >>> result.to_dict()["standings"]["perfect"]["loss"]
        0
    """
    if isinstance(agents, (str, Path)) or not isinstance(agents, Sequence):
        raise TttlabTypeError("agents must be a list of agents, names or paths")
    if len(agents) < 2:
        raise TttlabError("an arena needs at least two agents")
    games = whole(games, "games", 1)
    seed = whole(seed, "seed", 0)
    geometry = None if board is None else geometry_of(board)
    # Files are read once, here; built-in names wait for the board.
    given = [
        load(a, geometry) if isinstance(a, (str, Path)) and not is_builtin(str(a)) else a
        for a in agents
    ]
    if geometry is None:  # the first agent with a board of its own decides
        boards = (getattr(a, "geometry", None) for a in given)
        geometry = next((g for g in boards if isinstance(g, Geometry)), DEFAULT)
    players = [as_agent(a, geometry)[0] for a in given]
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
    iteration (``"vi"``) or policy iteration (``"pi"``). ``ttt mdp``.

    Examples:
        >>> import tttlab
        >>> as_x = tttlab.mdp(seat="X", opponent="random", method="pi")
        >>> round(as_x.value * 192), as_x.states
        (191, 341)
    """
    import time

    from tttlab.planning import build_mdp, policy_iteration, value_iteration

    geometry = geometry_of(board)
    player = seat_of(seat)
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
    fixed, geometry = as_agent(opponent, geometry)
    space = space_within(geometry, MDP_POSITIONS, "an MDP")
    started = time.perf_counter()
    table = policy_matrix(fixed, space, player.other)
    built = build_mdp(space, player, table, rewards=rewards, soft_constraint=soft_constraint)  # type: ignore[arg-type]
    solution = (
        value_iteration(built, gamma, tol) if method == "vi" else policy_iteration(built, gamma)
    )
    return MDPResult(
        board=geometry.name,
        seat=player.name,
        opponent=opponent if isinstance(opponent, str) else fixed.name,
        method=method,
        gamma=gamma,
        rewards=rewards,
        soft_constraint=soft_constraint,
        value=solution.value(built),
        states=built.n_states,
        decision_states=built.n_states - 3,
        symmetric=built.symmetric,
        iterations=solution.iterations,
        residual=solution.residual,
        seconds=round(time.perf_counter() - started, 3),
        mdp=built,
        solution=solution,
        agent_type=TrainedAgent,
    )


def position(text: str, board: Geometry | str | None = None) -> Position:
    """A position from its string (``"X.O/.X./..O"``), checked to be reachable.

    Examples:
        >>> import tttlab
        >>> p = tttlab.position("X.O/.X./...")
        >>> p.to_move.name, p.legal_moves
        ('O', (1, 3, 5, 6, 7, 8))
    """
    if not isinstance(text, str):
        raise TttlabTypeError(f"a position is a string like 'X.O/.X./..O', not {text!r}")
    geometry = None if board is None else geometry_of(board)
    return Position.from_string(text) if geometry is None else Position.from_string(text, geometry)
