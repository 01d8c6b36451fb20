"""Agents: the protocol, the built-ins, and a factory from names (and, later, files)."""

from __future__ import annotations

from tttlab.agents.base import Agent, sample, uniform
from tttlab.agents.builtin import MinimaxAgent, PerfectAgent, RandomAgent
from tttlab.agents.mcts import MCTSAgent
from tttlab.agents.proved import ProvedAgent
from tttlab.errors import AgentError
from tttlab.game import Geometry, estimate_positions
from tttlab.limits import ENUMERATION_CANDIDATES

__all__ = [
    "BUILTIN",
    "Agent",
    "AgentError",
    "BuiltinAgent",
    "MCTSAgent",
    "MinimaxAgent",
    "PerfectAgent",
    "ProvedAgent",
    "RandomAgent",
    "make_agent",
    "sample",
    "uniform",
]

BUILTIN = ("random", "perfect", "minimax", "mcts")
#: What :func:`make_agent` makes.
BuiltinAgent = RandomAgent | PerfectAgent | ProvedAgent | MinimaxAgent | MCTSAgent


def make_agent(
    spec: str,
    geometry: Geometry,
    *,
    depth: int | None = None,
    simulations: int | None = None,
    exploration: float | None = None,
    seed: int = 0,
) -> BuiltinAgent:
    """A built-in agent by name: ``random``, ``perfect``, ``minimax`` or ``mcts``.

    ``mcts:N`` and ``mcts:N:C`` set the simulations and the exploration constant in the name
    itself (so an arena can hold several); ``minimax:D`` sets the depth.

    Examples:
        >>> from tttlab.game import Geometry
        >>> make_agent("mcts:200:1.0", Geometry()).name, make_agent("minimax:3", Geometry()).name
        ('mcts(200)', 'minimax(depth=3)')
    """
    name, _, rest = spec.strip().lower().partition(":")
    args = [a for a in rest.split(":") if a] if rest else []
    try:
        if name == "random" and not args:
            return RandomAgent(geometry)
        if name == "perfect" and not args:
            if estimate_positions(geometry) > ENUMERATION_CANDIDATES:
                return ProvedAgent(geometry)  # no full table: a proof per position
            return PerfectAgent(geometry)
        if name == "minimax" and len(args) <= 1:
            return MinimaxAgent(geometry, depth=int(args[0]) if args else depth)
        if name == "mcts" and len(args) <= 2:
            sims = int(args[0]) if args else simulations or 1000
            c = float(args[1]) if len(args) > 1 else 1.4 if exploration is None else exploration
            return MCTSAgent(geometry, simulations=sims, exploration=c, seed=seed)
    except ValueError as error:
        raise AgentError(f"bad agent {spec!r}: {error}") from None
    raise AgentError(
        f"unknown agent {spec!r}; choose one of {', '.join(BUILTIN)} "
        "(mcts:SIMULATIONS[:C] and minimax:DEPTH also work)"
    )
