"""Turning command-line AGENT arguments and --board/--k into agents, with one-line errors."""

from __future__ import annotations

from collections.abc import Sequence

from tttlab.agents import Agent, AgentError
from tttlab.cli.common import CommandError, geometry_from
from tttlab.game import DEFAULT, Geometry, StateSpaceTooLarge
from tttlab.io import is_builtin, load_agent_file, resolve_agent


def choose_geometry(specs: Sequence[str], board: Geometry | None, k: int | None) -> Geometry:
    """--board/--k when given; otherwise the board of the first agent file; else 3×3."""
    if board is not None:
        return geometry_from(board, k)
    for spec in specs:
        if not is_builtin(spec):
            try:
                found = load_agent_file(spec).geometry
            except AgentError:
                continue  # the real load below reports the problem
            return geometry_from(found, k)
    return geometry_from(DEFAULT, k)


def load_agent(spec: str, geometry: Geometry, depth: int | None = None) -> Agent:
    try:
        return resolve_agent(spec, geometry, depth=depth)
    except (AgentError, StateSpaceTooLarge) as error:
        raise CommandError(str(error)) from None


def load_agents(
    specs: Sequence[str], board: Geometry | None, k: int | None, depth: int | None = None
) -> tuple[Geometry, list[Agent]]:
    geometry = choose_geometry(specs, board, k)
    return geometry, [load_agent(spec, geometry, depth) for spec in specs]
