"""Turning command-line AGENT arguments and --board/--k into agents, with one-line errors.

Each agent file is read once: first on its own (it may decide the board), then checked
against the board that was chosen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TypeVar

from tttlab.agents import Agent, AgentError
from tttlab.cli.common import CommandError, err, geometry_from
from tttlab.game import DEFAULT, Geometry, StateSpaceTooLarge
from tttlab.io import FileAgent, check_board, file_agent, is_builtin, resolve_agent
from tttlab.unboxed import UserAgent, is_user_spec

T = TypeVar("T")


def _one_line(load: Callable[[], T]) -> T:
    try:
        return load()
    except (AgentError, StateSpaceTooLarge) as error:
        raise CommandError(str(error)) from None


def load_files(specs: Sequence[str]) -> dict[str, FileAgent]:
    """The agent files among ``specs`` (built-in names are left out), each read once."""
    files: dict[str, FileAgent] = {}
    for spec in specs:
        if not is_builtin(spec) and not is_user_spec(spec) and spec not in files:
            files[spec] = _one_line(partial(file_agent, spec))
    return files


def choose_geometry(
    files: Mapping[str, FileAgent], board: Geometry | None, k: int | None
) -> Geometry:
    """--board/--k when given; otherwise the board of the first agent file; else 3×3."""
    if board is not None:
        return geometry_from(board, k)
    for agent in files.values():
        return geometry_from(agent.geometry, k)
    return geometry_from(DEFAULT, k)


def agent_for(
    spec: str,
    geometry: Geometry,
    files: Mapping[str, FileAgent],
    depth: int | None = None,
    convention: str | None = None,
) -> Agent:
    """The agent named ``spec`` for ``geometry``: a file already read, a built-in, or
    user code (``file.py:NAME``, ``package.module:NAME``; the convention is said on
    stderr)."""
    found = files.get(spec)
    if found is not None:
        _one_line(partial(check_board, found.geometry, spec, geometry))
        return found
    agent = _one_line(partial(resolve_agent, spec, geometry, depth=depth, convention=convention))
    if isinstance(agent, UserAgent):
        err.print(f"ttt: {agent.describe()}", markup=False)
    return agent


def load_agents(
    specs: Sequence[str],
    board: Geometry | None,
    k: int | None,
    depth: int | None = None,
    convention: str | None = None,
) -> tuple[Geometry, list[Agent]]:
    files = load_files(specs)
    geometry = choose_geometry(files, board, k)
    return geometry, [agent_for(spec, geometry, files, depth, convention) for spec in specs]
