"""Turning a command-line AGENT argument into an agent, with one-line errors."""

from __future__ import annotations

from tttlab.agents import Agent, AgentError, make_agent
from tttlab.cli.common import CommandError
from tttlab.game import Geometry, StateSpaceTooLarge


def load_agent(spec: str, geometry: Geometry, depth: int | None = None) -> Agent:
    try:
        return make_agent(spec, geometry, depth=depth)
    except (AgentError, StateSpaceTooLarge) as error:
        raise CommandError(str(error)) from None
