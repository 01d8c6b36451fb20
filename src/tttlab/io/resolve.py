"""One place that turns an AGENT argument (a built-in name, an agent file, or a user's code
as ``file.py:NAME`` / ``package.module:NAME``) into an agent.

A network agent's file may carry a search budget as a suffix, in the style of ``mcts:N``:
``az.npz:200`` plays with 200 network-guided simulations per move.
"""

from __future__ import annotations

from pathlib import Path

from tttlab.agents import BUILTIN, Agent, AgentError, make_agent
from tttlab.agents.network import NetworkAgent
from tttlab.game import Geometry
from tttlab.io.agentfile import FileAgent, load_agent_file
from tttlab.unboxed.adapters import user_agent
from tttlab.unboxed.userspec import is_user_spec

__all__ = ["file_agent", "is_builtin", "resolve_agent", "split_search"]


def is_builtin(spec: str) -> bool:
    """A built-in name, possibly with parameters (``mcts:2000``, ``minimax:3``)."""
    return spec.strip().lower().partition(":")[0] in BUILTIN and not Path(spec).exists()


def split_search(spec: str) -> tuple[str, int | None]:
    """``"az.npz:200"`` → ``("az.npz", 200)`` when ``az.npz`` is a file and the file
    ``az.npz:200`` is not; otherwise ``(spec, None)``."""
    path, colon, tail = spec.rpartition(":")
    if colon and path and not Path(spec).exists() and Path(path).exists():
        if not tail.strip().isdigit():
            raise AgentError(f"bad agent {spec!r}: the number after ':' must be whole")
        return path, int(tail)
    return spec, None


def resolve_agent(
    spec: str,
    geometry: Geometry | None = None,
    *,
    depth: int | None = None,
    convention: str | None = None,
) -> Agent:
    """A built-in agent by name, the agent stored in a file, or a user's code called under
    ``convention`` (:mod:`tttlab.unboxed.adapters`; detected when None).

    With ``geometry`` None a file decides the board; built-ins and user code play 3×3.
    """
    if is_user_spec(spec):
        return user_agent(spec, geometry if geometry is not None else Geometry(), convention)
    if is_builtin(spec):
        return make_agent(spec, geometry if geometry is not None else Geometry(), depth=depth)
    return file_agent(spec, geometry)


def file_agent(spec: str, geometry: Geometry | None = None) -> FileAgent:
    """The agent stored in the file ``spec`` (for ``geometry``'s board, if given); a
    ``:N`` suffix on a network agent's file adds N simulations of search per move."""
    path, simulations = split_search(spec)
    if not Path(path).exists():
        raise AgentError(
            f"unknown agent {spec!r}: not a built-in ({', '.join(BUILTIN)}) and no such file"
        )
    agent = load_agent_file(path, geometry)
    if simulations is None:
        return agent
    if not isinstance(agent, NetworkAgent):
        raise AgentError(f"{path} is a table agent; only network agents take ':N' (search)")
    try:
        return agent.with_search(simulations)
    except ValueError as error:
        raise AgentError(f"bad agent {spec!r}: {error}") from None
