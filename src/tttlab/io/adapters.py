"""Agents from anyone's code: ``path/to/file.py:NAME`` or ``package.module:NAME``, or the
object itself, made a tttlab agent under one of these conventions:

=========  ==============================================================================
exercise   ``f(board) -> (i, j)`` on the exercise's board: a checked file's ``minimax``
position   ``f(position) -> cell``: tttlab's position string (``"X.O......"``) or, when it
           takes one, a :class:`~tttlab.game.Position`; returns a 0-based cell index
gym        ``f(observation, action_mask) -> action`` on the environments' observations
sb3        a model with ``predict(observation, action_masks=...)`` (Stable-Baselines3)
batched    ``f(observations[N, rows, cols, 2], masks[N, cells]) -> actions[N]`` (numpy or
           JAX): the exact judge asks it for all positions in a few calls
course     the course's TD agent: ``take_action(env)`` on its own ``Environment``, ε = 0
agent      tttlab's own agent protocol (``select_move``, ``move_probabilities``)
=========  ==============================================================================

The convention is detected by asking the code (one position, then a batch of two), or
forced. A policy that answers a position differently when asked twice is not deterministic:
the exact judge then estimates its move probabilities from :data:`SAMPLES` answers per
position and says that the result is sampled.

User code runs in this process (it must, to play against a person); what it raises, and
any illegal move, becomes one :class:`~tttlab.errors.AgentError` line.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from tttlab.agents import Agent
from tttlab.agents.base import check_playable, sample
from tttlab.errors import AgentError
from tttlab.exercise import board_of
from tttlab.game import Geometry, Player, Position, StateSpace, state_space
from tttlab.game.observation import planes_of
from tttlab.io.userspec import (
    is_user_spec,
    load_object,
    loaded_module,
    positional_arguments,
    raised,
    user_line,
)

__all__ = ["CONVENTIONS", "SAMPLES", "UserAgent", "is_user_spec", "load_object", "user_agent"]

CONVENTIONS = ("exercise", "position", "gym", "sb3", "batched", "course", "agent")
#: Answers per position from which a policy that is not deterministic is judged.
SAMPLES = 32
#: Positions asked twice to tell whether a policy is deterministic.
_PROBES = 16
#: Positions per call of a batched policy.
_BATCH = 65_536


def _is_agent(obj: Any) -> bool:
    return all(hasattr(obj, a) for a in ("select_move", "move_probabilities", "name"))


@dataclass(eq=False)
class UserAgent:
    """A tttlab agent that asks user code for each move (see the module's doc)."""

    target: Any
    convention: str
    geometry: Geometry
    name: str
    takes_position: bool = False
    deterministic: bool = True
    #: The course convention: the student's Environment class.
    environment: Any = None
    #: The seats it plays (a course agent whose symbol is set plays that seat only).
    seats: tuple[Player, ...] = (Player.X, Player.O)
    _memo: dict[int, Mapping[int, float]] = field(default_factory=dict, repr=False)

    @property
    def sampled(self) -> bool:
        """The exact judge estimates this policy's probabilities from samples."""
        return not self.deterministic

    def describe(self) -> str:
        kind = {
            "exercise": "the exercise's f(board) -> (i, j)",
            "position": "f(position) -> cell",
            "gym": "f(observation, action_mask) -> action",
            "sb3": "a model with predict(observation, action_masks=...)",
            "batched": "a batched f(observations, masks) -> actions",
            "course": "the course's agent: take_action(env) on its own Environment",
            "agent": "tttlab's agent protocol",
        }[self.convention]
        how = (
            "deterministic"
            if self.deterministic
            else (f"not deterministic: judged from {SAMPLES} samples per position")
        )
        return f"{self.name}: {kind}; {how}"

    # -- asking the code ---------------------------------------------------------------

    def _fail(self, position: Position, what: str) -> AgentError:
        return AgentError(f"{self.name} {what} at position {position.to_string('/')}")

    def _ask(self, position: Position) -> Any:
        g = self.geometry
        if self.convention == "exercise":
            return self.target(board_of(position))
        if self.convention == "position":
            return self.target(position if self.takes_position else position.to_string())
        if self.convention == "course":
            return self._ask_course(position)
        observation = planes_of(position.cells, int(position.to_move), g)
        mask = np.zeros(g.cells, dtype=np.int8)
        mask[list(position.legal_moves)] = 1
        if self.convention == "gym":
            return self.target(observation, mask)
        return self._ask_batch(observation[None], mask[None])[0]

    def _ask_course(self, position: Position) -> Any:
        """Put the position on a fresh Environment, let the agent play greedily (ε = 0),
        and read its move off the board (or take the (i, j) it returns)."""
        g = self.geometry
        env = self.environment()
        mover = env.x if position.to_move == Player.X else env.o
        values = {0: 0, 1: env.x, 2: env.o}
        for k, c in enumerate(position.cells):
            env.board[k // g.cols, k % g.cols] = values[c]
        before = np.array(env.board, copy=True)
        agent = self.target
        saved = {a: getattr(agent, a) for a in ("eps", "epsilon", "verbose") if hasattr(agent, a)}
        try:
            for attribute in saved:
                setattr(agent, attribute, 0 if attribute != "verbose" else False)
            if len(self.seats) == 2:
                if callable(getattr(agent, "set_symbol", None)):
                    agent.set_symbol(mover)
                else:
                    agent.sym = mover
            returned = agent.take_action(env)
        finally:
            for attribute, value in saved.items():
                setattr(agent, attribute, value)
        changed = np.flatnonzero(np.asarray(env.board).ravel() != before.ravel())
        if len(changed) == 1:
            return divmod(int(changed[0]), g.cols)
        if len(changed) == 0 and returned is not None:
            return returned
        raise AgentError(
            f"{self.name}.take_action changed {len(changed)} cells at position "
            f"{position.to_string('/')}; it should place one mark"
        )

    def _ask_batch(
        self, observations: npt.NDArray[np.int8], masks: npt.NDArray[np.int8]
    ) -> npt.NDArray[np.int64]:
        try:
            if self.convention == "sb3":
                answer = self.target.predict(observations, action_masks=masks, deterministic=True)
                answer = answer[0] if isinstance(answer, tuple) else answer
            else:
                answer = self.target(observations, masks)
        except BaseException as error:
            if isinstance(error, KeyboardInterrupt):
                raise
            raise AgentError(
                f"{self.name} raised {raised(error)} when asked {len(observations)} positions"
            ) from None
        actions = np.asarray(answer)
        if actions.shape != (len(observations),) or not np.issubdtype(actions.dtype, np.integer):
            if actions.shape == (len(observations),) and np.all(np.mod(actions, 1) == 0):
                return actions.astype(np.int64)
            raise AgentError(
                f"{self.name} returned {actions.dtype} of shape {actions.shape} for "
                f"{len(observations)} positions; expected {len(observations)} whole numbers"
            )
        return actions.astype(np.int64)

    def _cell(self, position: Position, answer: Any) -> int:
        g = self.geometry
        if self.convention in ("exercise", "course"):
            ok = isinstance(answer, (tuple, list)) and len(answer) == 2
            try:
                row, col = (int(v.__index__()) for v in answer) if ok else (-1, -1)
            except (AttributeError, TypeError):
                row, col = -1, -1
            if not (0 <= row < g.rows and 0 <= col < g.cols):
                raise self._fail(position, f"returned {answer!r}, not an (i, j) action")
            cell = row * g.cols + col
        else:
            try:
                cell = int(answer.__index__()) if not isinstance(answer, int) else answer
            except (AttributeError, TypeError):
                raise self._fail(position, f"returned {answer!r}, not a cell index") from None
        if not position.is_legal(cell):
            raise self._fail(position, f"played the illegal move {cell}")
        return cell

    def _move(self, position: Position) -> int:
        try:
            answer = self._ask(position)
        except AgentError:
            raise
        except BaseException as error:
            if isinstance(error, KeyboardInterrupt):
                raise
            raise self._fail(position, f"raised {raised(error)}") from None
        return self._cell(position, answer)

    # -- the agent protocol --------------------------------------------------------------

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        check_playable(self.geometry, position)
        if self.deterministic:
            return self._move(position)
        return sample(self.move_probabilities(position), rng)

    def move_probabilities(self, position: Position) -> Mapping[int, float]:
        check_playable(self.geometry, position)
        key = position.id
        if key not in self._memo:
            if self.deterministic:
                self._memo[key] = {self._move(position): 1.0}
            else:
                counts: dict[int, int] = {}
                for _ in range(SAMPLES):
                    move = self._move(position)
                    counts[move] = counts.get(move, 0) + 1
                self._memo[key] = {m: c / SAMPLES for m, c in sorted(counts.items())}
        return self._memo[key]

    def move_values(self, position: Position) -> Mapping[int, float] | None:
        return None

    def policy_matrix(self, side: Player) -> npt.NDArray[np.float64]:
        """Move probabilities at every position where ``side`` moves (the exact judge's
        fast path: a batched policy is asked in a few calls)."""
        space = state_space(self.geometry)
        rows = np.flatnonzero(~space.terminal & (space.to_move == int(side)))
        out = np.zeros((space.size, self.geometry.cells))
        if self.convention in ("batched", "sb3"):
            rounds = 1 if self.deterministic else SAMPLES
            for start in range(0, len(rows), _BATCH):
                chunk = rows[start : start + _BATCH]
                observations, masks = _inputs(space, chunk, int(side))
                for _ in range(rounds):
                    moves = self._ask_batch(observations, masks)
                    _check_legal(self.name, space, chunk, moves)
                    out[chunk, moves] += 1.0 / rounds
            return out
        for i in rows:
            for move, p in self.move_probabilities(space.position(int(i))).items():
                out[i, move] = p
        return out


def _inputs(
    space: StateSpace, rows: npt.NDArray[np.intp], side: int
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    cells = space.boards[rows]
    return planes_of(cells, side, space.geometry), (space.next[rows] >= 0).astype(np.int8)


def _check_legal(
    name: str, space: StateSpace, rows: npt.NDArray[np.intp], moves: npt.NDArray[np.int64]
) -> None:
    cells = space.geometry.cells
    inside = (moves >= 0) & (moves < cells)
    legal = inside.copy()
    legal[inside] = space.next[rows[inside], moves[inside]] >= 0
    if not legal.all():
        bad = int(np.flatnonzero(~legal)[0])
        where = space.position(int(rows[bad])).to_string("/")
        raise AgentError(f"{name} played the illegal move {int(moves[bad])} at position {where}")


def _probe_positions(geometry: Geometry) -> list[Position]:
    """A few positions from one seeded game per start, mid-game (cheap for any search)."""
    rng, found = np.random.default_rng(0), []
    for _ in range(_PROBES):
        position = Position.initial(geometry)
        stop = int(rng.integers(geometry.cells // 2, geometry.cells))
        while position.ply < stop:
            nxt = position.apply(int(rng.choice(position.legal_moves)))
            if nxt.is_terminal:
                break
            position = nxt
        found.append(position)
    return found


def _detect(target: Any, geometry: Geometry, name: str) -> tuple[str, bool]:
    """The convention ``target`` follows, and whether it takes a Position (position only)."""
    if _is_agent(target):
        return "agent", False
    if callable(getattr(target, "take_action", None)):
        return "course", False
    if callable(getattr(target, "predict", None)):
        return "sb3", False
    if not callable(target):
        raise AgentError(f"{name} is not callable and has no predict(): not an agent")
    start = Position.initial(geometry)
    arity = positional_arguments(target)
    tries: list[tuple[str, bool]] = []
    if arity in (None, 2):
        tries += [("batched", False), ("gym", False)]
    if arity in (None, 1):
        tries += [("exercise", False), ("position", False), ("position", True)]
    own: list[str] = []  # errors raised inside the user's own code, convention by convention
    for convention, takes_position in tries:
        probe = UserAgent(target, convention, geometry, name, takes_position)
        try:
            if convention == "batched":
                second = start.apply(0)
                observations = planes_of([start.cells, second.cells], [1, 2], geometry)
                masks = np.ones((2, geometry.cells), dtype=np.int8)
                masks[1, 0] = 0
                moves = probe._ask_batch(observations, masks)
                if np.asarray(moves).shape == (2,):
                    return convention, takes_position
                continue
            probe._move(start)
            return convention, takes_position
        except Exception as error:  # an AgentError wraps the user's own error
            cause = (error.__context__ or error) if isinstance(error, AgentError) else error
            if user_line(cause) and not own:
                own.append(f"under the {convention} convention it raised {raised(cause)}")
            continue
    why = f": {own[0]}" if own else ""
    raise AgentError(
        f"{name} follows none of the conventions ({', '.join(CONVENTIONS)}){why}; "
        "--convention forces one"
    )


def user_agent(
    target: Any, geometry: Geometry, convention: str | None = None, name: str | None = None
) -> Agent:
    """A tttlab agent for ``target``: a spec (``file.py:NAME``, ``package.module:NAME``) or
    the object itself, under ``convention`` (detected when None)."""
    if isinstance(target, str):
        name = name or target
        target = load_object(target)
    name = name or getattr(target, "__qualname__", None) or type(target).__name__
    if convention is not None and convention not in CONVENTIONS:
        raise AgentError(
            f"unknown convention {convention!r}; choose one of {', '.join(CONVENTIONS)}"
        )
    if convention == "agent" or (convention is None and _is_agent(target)):
        if not _is_agent(target):
            raise AgentError(f"{name} does not have tttlab's agent protocol")
        return target  # type: ignore[no-any-return]
    home = None
    if isinstance(name, str) and is_user_spec(name):
        home = loaded_module(name)
    takes_position = False
    if convention is None:
        convention, takes_position = _detect(target, geometry, name)
    elif convention == "position":
        takes_position = positional_arguments(target) == 1 and "Position" in str(
            inspect.signature(target).parameters
        )
    agent = UserAgent(target, convention, geometry, name, takes_position)
    if convention == "course":
        agent.environment = _environment(target, home, name)
        sym, env = getattr(target, "sym", None), agent.environment()
        if sym is not None and sym in (env.x, env.o):  # trained for one seat: judged there
            agent.seats = (Player.X,) if sym == env.x else (Player.O,)
    agent.deterministic = _deterministic(agent)
    return agent


def _environment(target: Any, home: Any, name: str) -> Any:
    """The student's Environment class: beside the agent, or in its class's module."""
    places = [home, sys.modules.get(type(target).__module__)]
    for place in places:
        found = getattr(place, "Environment", None)
        if isinstance(found, type):
            return found
    raise AgentError(f"{name}: no Environment class beside the agent to play it on")


def _deterministic(agent: UserAgent) -> bool:
    """Ask mid-game positions twice (a batched policy: one batch twice)."""
    probes = _probe_positions(agent.geometry)
    if agent.convention in ("batched", "sb3"):
        observations = planes_of(
            [p.cells for p in probes], [int(p.to_move) for p in probes], agent.geometry
        )
        masks = np.array(
            [[p.is_legal(m) for m in range(agent.geometry.cells)] for p in probes], dtype=np.int8
        )
        first = agent._ask_batch(observations, masks)
        return bool(np.array_equal(first, agent._ask_batch(observations, masks)))
    return all(agent._move(p) == agent._move(p) for p in probes)
