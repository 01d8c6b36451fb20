"""Agents: the protocol, the built-ins, and a factory from names (and, later, files)."""

from __future__ import annotations

from tttlab.agents.base import Agent, sample, uniform
from tttlab.agents.builtin import MinimaxAgent, PerfectAgent, RandomAgent
from tttlab.game import Geometry

__all__ = [
    "BUILTIN",
    "Agent",
    "AgentError",
    "MinimaxAgent",
    "PerfectAgent",
    "RandomAgent",
    "make_agent",
    "sample",
    "uniform",
]

BUILTIN = ("random", "perfect", "minimax")


class AgentError(ValueError):
    """An agent name or file that cannot be used."""


def make_agent(spec: str, geometry: Geometry, *, depth: int | None = None) -> Agent:
    """A built-in agent by name: ``random``, ``perfect`` or ``minimax``."""
    name = spec.strip().lower()
    if name == "random":
        return RandomAgent(geometry)
    if name == "perfect":
        return PerfectAgent(geometry)
    if name == "minimax":
        return MinimaxAgent(geometry, depth=depth)
    raise AgentError(f"unknown agent {spec!r}; choose one of {', '.join(BUILTIN)}")
