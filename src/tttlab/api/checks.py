"""The API's arguments, checked (and an agent argument loaded, :func:`as_agent`): each wrong
one is a one-line :class:`~tttlab.TttlabError` (a value that cannot be used) or
:class:`~tttlab.TttlabTypeError` (a wrong type)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tttlab.agents import Agent
from tttlab.errors import TttlabError, TttlabTypeError
from tttlab.game import DEFAULT, Geometry, Player, StateSpace, state_space
from tttlab.io import check_board, resolve_agent
from tttlab.unboxed import user_agent

__all__ = ["as_agent", "geometry_of", "seat_of", "space_within", "whole"]


def geometry_of(
    board: Geometry | str | None, k: int | None = None, *, search: bool = False
) -> Geometry:
    """A board by name (``"4x4k4"``), a :class:`Geometry`, or 3×3 for ``None``; past 39
    cells only for the proof search (``search``)."""
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
    if not search:
        geometry.require_play_size()
    return geometry


def seat_of(value: Any, label: str = "seat") -> Player:
    """``"X"``, ``"O"`` or a :class:`Player`."""
    if isinstance(value, Player):
        return value
    if not isinstance(value, str):
        raise TttlabTypeError(f"{label} must be 'X' or 'O', not {value!r}")
    try:
        return Player.parse(value)
    except TttlabError:
        raise TttlabError(f"{label} must be 'X' or 'O', got {value!r}") from None


def whole(value: Any, label: str, minimum: int = 0) -> int:
    """A whole number of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TttlabTypeError(f"{label} must be a whole number, not {value!r}")
    if value < minimum:
        raise TttlabError(f"{label} must be at least {minimum}, got {value}")
    return int(value)


def space_within(geometry: Geometry, limit: int, work: str, instead: str = "") -> StateSpace:
    """The table of every position of ``geometry``, refused in one line when it has more
    than ``limit`` positions, the most ``work`` takes (``instead``: what to do then)."""
    space = state_space(geometry)
    if space.size > limit:
        raise TttlabError(
            f"{geometry.name} has {space.size:,} positions; {work} is limited to {limit:,}"
            + (f" ({instead})" if instead else "")
        )
    return space


def _ours(agent: Any) -> bool:
    """An agent of tttlab's own classes (believed about itself; anyone else's object is
    asked like user code)."""
    return hasattr(agent, "select_move") and type(agent).__module__.startswith("tttlab.")


def as_agent(
    agent: Agent | str | Path | Any, geometry: Geometry | None, convention: str | None = None
) -> tuple[Agent, Geometry]:
    """An agent object (names, paths and user code loaded), and the board it plays.

    Besides tttlab's agents, names and files, ``agent`` may be user code: a
    ``"file.py:NAME"`` or ``"package.module:NAME"`` string, a function or a model, under a
    ``convention`` of :mod:`tttlab.unboxed.adapters` (detected when None)."""
    if isinstance(agent, (str, Path)):  # the one dispatch: built-in, file or user code
        loaded: Agent = resolve_agent(str(agent), geometry, convention=convention)
    elif _ours(agent) and convention in (None, "agent"):
        loaded = agent
    elif callable(agent) or any(
        callable(getattr(agent, a, None)) for a in ("predict", "select_move", "take_action")
    ):
        loaded = user_agent(agent, geometry or DEFAULT, convention)
    else:
        raise TttlabTypeError(f"not an agent, an agent name, a path or a policy: {agent!r}")
    own = getattr(loaded, "geometry", None)
    if geometry is None:
        geometry = own if isinstance(own, Geometry) else DEFAULT
    elif isinstance(own, Geometry):
        check_board(own, getattr(loaded, "name", "agent"), geometry)
    return loaded, geometry
