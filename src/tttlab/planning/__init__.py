"""The game as an MDP against a fixed opponent, solved by value and policy iteration."""

from tttlab.planning.agent import mdp_agent
from tttlab.planning.build import MDP, build_mdp
from tttlab.planning.iteration import MDPSolution, policy_iteration, q_values, value_iteration

__all__ = [
    "MDP",
    "MDPSolution",
    "build_mdp",
    "mdp_agent",
    "policy_iteration",
    "q_values",
    "value_iteration",
]
