"""One place that turns an AGENT argument (a built-in name or an agent file) into an agent."""

from __future__ import annotations

from pathlib import Path

from tttlab.agents import BUILTIN, Agent, AgentError, make_agent
from tttlab.agents.learned import LearnedAgent
from tttlab.game import Geometry
from tttlab.io.agentfile import load_agent_file

__all__ = ["file_agent", "is_builtin", "resolve_agent"]


def is_builtin(spec: str) -> bool:
    """A built-in name, possibly with parameters (``mcts:2000``, ``minimax:3``)."""
    return spec.strip().lower().partition(":")[0] in BUILTIN and not Path(spec).exists()


def resolve_agent(
    spec: str, geometry: Geometry | None = None, *, depth: int | None = None
) -> Agent:
    """A built-in agent by name, or the agent stored in a file.

    With ``geometry`` None a file decides the board and built-ins play 3×3.
    """
    if is_builtin(spec):
        return make_agent(spec, geometry if geometry is not None else Geometry(), depth=depth)
    return file_agent(spec, geometry)


def file_agent(spec: str, geometry: Geometry | None = None) -> LearnedAgent:
    """The agent stored in the file ``spec`` (for ``geometry``'s board, if given)."""
    if not Path(spec).exists():
        raise AgentError(
            f"unknown agent {spec!r}: not a built-in ({', '.join(BUILTIN)}) and no such file"
        )
    return load_agent_file(spec, geometry)
