"""Exact evaluation of an agent over the whole game graph (no sampling).

For a seat the agent plays:
- ``worst_case``: the result against an opponent that knows the agent and answers best,
  with the agent's ties broken against it (+1 win, 0 draw, −1 loss);
- ``vs_random``: win / draw / loss probabilities against a uniformly random opponent;
- ``optimal_share``: among the positions where the agent moves that it can reach (its own
  possible moves, any opponent moves), the share where every move it may play keeps the
  game-theoretic value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tttlab.agents import Agent
from tttlab.agents.base import policy_matrix
from tttlab.game import Geometry, Player, StateSpace
from tttlab.solve import Solution, solve

__all__ = ["SeatReport", "evaluate", "evaluate_policy"]


@dataclass(frozen=True)
class SeatReport:
    """Exact metrics for one seat."""

    worst_case: int
    win: float
    draw: float
    loss: float
    optimal_share: float
    decision_positions: int

    def as_json(self) -> dict[str, Any]:
        return {
            "worst_case": self.worst_case,
            "vs_random": {"win": self.win, "draw": self.draw, "loss": self.loss},
            "score_vs_random": self.win - self.loss,
            "optimal_share": self.optimal_share,
            "decision_positions": self.decision_positions,
        }


def _uniform_rows(space: StateSpace, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
    legal = space.next[rows] >= 0
    counts = legal.sum(axis=1, keepdims=True)
    return np.where(legal, 1.0 / np.maximum(counts, 1), 0.0)


def evaluate_policy(
    policy: npt.NDArray[np.float64], side: Player, solution: Solution
) -> SeatReport:
    """Exact metrics of an N × cells move-probability table played on ``side``."""
    space = solution.space
    n = space.size
    mine = int(side)
    # Results from the agent's side at the end of the game.
    result = np.zeros(n, dtype=np.int8)
    result[space.winner == mine] = 1
    result[(space.winner != 0) & (space.winner != mine)] = -1

    max_ply = int(space.ply.max())
    layers = [np.flatnonzero((space.ply == p) & ~space.terminal) for p in range(max_ply + 1)]

    # Worst case: backward induction, the agent's ties and the opponent's choice against it.
    worst = result.copy()
    for rows in reversed(layers):
        if rows.size == 0:
            continue
        children = space.next[rows]
        legal = children >= 0
        child_val = np.where(legal, worst[np.where(legal, children, 0)], 2)
        agent_moves = space.to_move[rows] == mine
        support = np.where(agent_moves[:, None], policy[rows] > 0, legal)
        worst[rows] = np.where(support, child_val, 2).min(axis=1)

    # Against random: forward probabilities; also which positions the agent can reach.
    reach = np.zeros(n)
    reach[0] = 1.0
    can_reach = np.zeros(n, dtype=np.bool_)
    can_reach[0] = True
    for rows in layers:
        if rows.size == 0:
            continue
        children = space.next[rows]
        legal = children >= 0
        agent_moves = (space.to_move[rows] == mine)[:, None]
        probs = np.where(agent_moves, policy[rows], _uniform_rows(space, rows))
        flow = reach[rows][:, None] * probs
        take = legal & (probs > 0)
        np.add.at(reach, children[take], flow[take])
        open_moves = (
            legal & np.where(agent_moves, policy[rows] > 0, True) & can_reach[rows][:, None]
        )
        can_reach[children[open_moves]] = True

    decisions = np.flatnonzero(can_reach & ~space.terminal & (space.to_move == mine))
    plays = policy[decisions] > 0
    good = ~(plays & ~solution.optimal[decisions]).any(axis=1)
    final = space.terminal
    return SeatReport(
        worst_case=int(worst[0]),
        win=float(reach[final & (result == 1)].sum()),
        draw=float(reach[final & (result == 0)].sum()),
        loss=float(reach[final & (result == -1)].sum()),
        optimal_share=float(good.mean()) if decisions.size else 1.0,
        decision_positions=int(decisions.size),
    )


def evaluate(
    agent: Agent, geometry: Geometry, seats: tuple[Player, ...] | None = None
) -> dict[str, SeatReport]:
    """Exact reports for each seat the agent plays (both by default)."""
    solution = solve(geometry)
    chosen = seats if seats is not None else getattr(agent, "seats", (Player.X, Player.O))
    return {
        side.name: evaluate_policy(policy_matrix(agent, solution.space, side), side, solution)
        for side in chosen
    }
