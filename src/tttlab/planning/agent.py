"""A solved MDP as an agent (the learners' table format), mapped back to the real board."""

from __future__ import annotations

from typing import Any

import numpy as np

from tttlab.agents.learned import LearnedAgent
from tttlab.planning.build import MDP
from tttlab.planning.iteration import MDPSolution
from tttlab.solvers import solve_table

__all__ = ["mdp_agent"]


def mdp_agent(mdp: MDP, solution: MDPSolution, meta: dict[str, Any] | None = None) -> LearnedAgent:
    """An agent for the MDP's seat that plays greedily on the solution's Q values.

    Each decision position takes the Q values of its representative state, with the cells
    permuted back by the symmetry that maps it there. Positions the MDP never reaches (the
    opponent's policy avoids them) fall back to the game-theoretic values, so the agent
    still plays sensibly there. Values are rounded to 1e-12 so that moves that are equal in
    exact arithmetic tie exactly (and are then played uniformly).
    """
    space = mdp.space
    cells = space.geometry.cells
    sign = mdp.seat.sign
    perms = np.array(space.geometry.symmetries)
    table = np.zeros((space.size, cells))
    decision = space.decisions(mdp.seat)
    exact = solve_table(space.geometry)
    for i in decision:
        s = int(mdp.state_of[i])
        if s >= 0:
            q = np.where(mdp.legal[s], solution.Q[s], 0.0)
            row = np.zeros(cells)
            perm = perms[space.symmetry[i]] if mdp.symmetric else np.arange(cells)
            row[perm] = q  # the representative's cell a is this position's cell perm[a]
            table[i] = sign * np.round(row, 12)
        else:
            children = space.next[i]
            table[i] = np.where(children >= 0, exact.value[np.maximum(children, 0)], 0.0)
    return LearnedAgent(
        algorithm="mdp",
        geometry=space.geometry,
        seats=(mdp.seat,),
        tables={"Q": table[None, :, :]},
        meta=meta or {},
        label=f"mdp-{mdp.seat.name}",
    )
