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
forced. User code is never believed about itself: each position a judge needs is asked
twice (a batched policy: each batch twice), and the two answers must agree. A policy that
answers a position differently is not deterministic: no proof is printed for it, and the
exact judge estimates its move probabilities from :data:`SAMPLES` answers per position
and says that the result is sampled. An object with tttlab's agent protocol is asked the
same way, its ``move_probabilities`` twice, whatever it declares.

User code runs in this process (it must, to play against a person); it is asked through
:class:`~tttlab.unboxed.useragent.UserAgent`, and what it raises, and any illegal move,
becomes one :class:`~tttlab.errors.AgentError` line.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

import numpy as np

from tttlab.errors import AgentError
from tttlab.game import Geometry, Player, Position
from tttlab.game.observation import planes_of
from tttlab.unboxed.useragent import SAMPLES, UserAgent
from tttlab.unboxed.userspec import (
    is_user_spec,
    load_object,
    loaded_module,
    positional_arguments,
    raised,
    user_line,
)

__all__ = ["CONVENTIONS", "SAMPLES", "UserAgent", "is_user_spec", "load_object", "user_agent"]

CONVENTIONS = ("exercise", "position", "gym", "sb3", "batched", "course", "agent")


def _is_agent(obj: Any) -> bool:
    return all(hasattr(obj, a) for a in ("select_move", "move_probabilities", "name"))


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
) -> UserAgent:
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
        return _protocol_agent(target, geometry, name)
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
    start = Position.initial(geometry)
    if convention in ("batched", "sb3"):  # a forced convention that does not fit fails here
        observations = planes_of([start.cells], [int(start.to_move)], geometry)
        agent._ask_batch(observations, np.ones((1, geometry.cells), dtype=np.int8))
    elif start.to_move in agent.seats:
        agent._move(start)
    return agent


def _protocol_agent(target: Any, geometry: Geometry, name: str) -> UserAgent:
    """Someone's object with tttlab's agent protocol, asked like any user code (it may say
    it is not deterministic; it is never believed when it says it is)."""
    if not _is_agent(target):
        raise AgentError(f"{name} does not have tttlab's agent protocol")
    own = getattr(target, "geometry", None)
    agent = UserAgent(target, "agent", own if isinstance(own, Geometry) else geometry, name)
    agent.name = str(target.name)
    agent.seats = tuple(getattr(target, "seats", agent.seats))
    if getattr(target, "deterministic", None) is False:
        agent.sample_instead("it says so")
    return agent


def _environment(target: Any, home: Any, name: str) -> Any:
    """The student's Environment class: beside the agent, or in its class's module."""
    places = [home, sys.modules.get(type(target).__module__)]
    for place in places:
        found = getattr(place, "Environment", None)
        if isinstance(found, type):
            return found
    raise AgentError(f"{name}: no Environment class beside the agent to play it on")
