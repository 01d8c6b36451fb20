"""The game as an MDP against a fixed opponent, solved by value and policy iteration."""

from tttlab.mdp.agent import mdp_agent
from tttlab.mdp.build import MDP, build_mdp
from tttlab.mdp.solvers import MDPSolution, policy_iteration, q_values, value_iteration

__all__ = [
    "MDP",
    "MDPSolution",
    "build_mdp",
    "mdp_agent",
    "policy_iteration",
    "q_values",
    "value_iteration",
]
