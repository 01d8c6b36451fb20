"""Value iteration and policy iteration over an :class:`~tttlab.planning.build.MDP`.

Both handle the undiscounted episodic case (γ = 1, the default) as well as γ < 1: the three
absorbing states are worth 0, and every policy ends the game within the board's cell count,
so the linear systems of policy evaluation over the decision states are non-singular.
Illegal actions are never chosen (masked), whatever their reward in the export.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from tttlab.errors import ConfigError
from tttlab.planning.build import MDP

__all__ = ["MDPSolution", "policy_iteration", "q_values", "value_iteration"]


@dataclass(frozen=True, eq=False)
class MDPSolution:
    """Optimal values and a greedy policy.

    Attributes:
        V: value of each state.
        Q: S × A action values (−inf for illegal actions).
        policy: the chosen action of each decision state (−1 for absorbing states).
        iterations: sweeps (value iteration) or improvement steps (policy iteration).
        residual: the last change in V (value iteration) or 0 (policy iteration, exact).
        method: "vi" or "pi".
        gamma: the discount.
    """

    V: npt.NDArray[np.float64]
    Q: npt.NDArray[np.float64]
    policy: npt.NDArray[np.int64]
    iterations: int
    residual: float
    method: str
    gamma: float

    def value(self, mdp: MDP) -> float:
        """The expected reward from the start distribution."""
        return float(mdp.start @ self.V)


def q_values(mdp: MDP, V: npt.NDArray[np.float64], gamma: float) -> npt.NDArray[np.float64]:
    """Q(s, a) = R(s, a) + γ Σ P(s′ | s, a) V(s′); −inf where the action is illegal."""
    Q = np.column_stack([mdp.R[:, a] + gamma * (mdp.P[a] @ V) for a in range(mdp.n_actions)])
    return np.where(mdp.legal, Q, -np.inf)


def _greedy(mdp: MDP, Q: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    policy: npt.NDArray[np.int64] = np.argmax(Q, axis=1).astype(np.int64)
    policy[~mdp.legal.any(axis=1)] = -1
    return policy


def _check_gamma(gamma: float) -> None:
    if not 0.0 < gamma <= 1.0:
        raise ConfigError(f"gamma must be in (0, 1], got {gamma}")


def value_iteration(
    mdp: MDP, gamma: float = 1.0, tol: float = 1e-12, max_iterations: int = 100_000
) -> MDPSolution:
    """Bellman optimality sweeps until the largest change is below ``tol``."""
    _check_gamma(gamma)
    decision = mdp.legal.any(axis=1)
    V = np.zeros(mdp.n_states)
    residual = np.inf
    iterations = 0
    while residual >= tol and iterations < max_iterations:
        Q = q_values(mdp, V, gamma)
        new = np.where(decision, Q.max(axis=1, initial=-np.inf, where=mdp.legal), 0.0)
        residual = float(np.abs(new - V).max())
        V = new
        iterations += 1
    Q = q_values(mdp, V, gamma)
    return MDPSolution(V, Q, _greedy(mdp, Q), iterations, residual, "vi", gamma)


def _evaluate(mdp: MDP, policy: npt.NDArray[np.int64], gamma: float) -> npt.NDArray[np.float64]:
    """Exact V of a policy: solve (I − γ P_π) V = R_π over the decision states."""
    decision = np.flatnonzero(policy >= 0)
    n = mdp.n_states
    rows = []
    for a in range(mdp.n_actions):
        chosen = (policy == a).astype(np.float64)
        rows.append(sp.diags(chosen) @ mdp.P[a])
    p_pi = sp.csr_matrix(sum(rows[1:], rows[0]))
    r_pi = np.where(policy >= 0, mdp.R[np.arange(n), np.maximum(policy, 0)], 0.0)
    sub = p_pi[decision][:, decision]
    system = sp.identity(decision.size, format="csc") - gamma * sub.tocsc()
    V = np.zeros(n)
    V[decision] = spla.spsolve(system, r_pi[decision])
    return V


def policy_iteration(mdp: MDP, gamma: float = 1.0, max_iterations: int = 1_000) -> MDPSolution:
    """Exact evaluation by a sparse linear solve, then greedy improvement, until stable."""
    _check_gamma(gamma)
    # Start from the first legal move everywhere.
    policy = np.where(mdp.legal.any(axis=1), np.argmax(mdp.legal, axis=1), -1).astype(np.int64)
    iterations = 0
    while True:
        V = _evaluate(mdp, policy, gamma)
        Q = q_values(mdp, V, gamma)
        iterations += 1
        best = Q.max(axis=1, initial=-np.inf, where=mdp.legal)
        current = np.where(policy >= 0, Q[np.arange(mdp.n_states), np.maximum(policy, 0)], 0.0)
        # Keep the current action unless another is strictly better (no cycling on ties).
        improve = (policy >= 0) & (best > current + 1e-12)
        if not improve.any() or iterations >= max_iterations:
            return MDPSolution(V, Q, policy, iterations, 0.0, "pi", gamma)
        policy = np.where(improve, np.argmax(Q, axis=1), policy).astype(np.int64)
