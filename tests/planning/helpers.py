"""The MDP of the 3×3 game against a fixed opponent, as the planning tests build it."""

from __future__ import annotations

from tttlab.agents import make_agent
from tttlab.agents.base import policy_matrix
from tttlab.game import Geometry, Player, state_space
from tttlab.planning import MDP, build_mdp

G = Geometry()


def mdp_of(seat: Player, opponent: str = "random", **kw: object) -> MDP:
    """The MDP of ``seat`` against the built-in ``opponent`` on 3×3 (``kw`` go to build_mdp)."""
    space = state_space(G)
    table = policy_matrix(make_agent(opponent, G), space, seat.other)
    return build_mdp(space, seat, table, **kw)  # type: ignore[arg-type]
