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

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tttlab.agents import Agent
from tttlab.agents.base import policy_matrix
from tttlab.game import Geometry, Player, Position, StateSpace
from tttlab.solvers import Solution, solve_table

__all__ = [
    "Mistake",
    "SeatReport",
    "TableProgress",
    "evaluate_policy",
    "evaluate_seats",
    "mistake_report",
    "mistakes",
]


def against_random(win: float, draw: float, loss: float) -> dict[str, Any]:
    """The JSON of results against a uniformly random opponent: the shares and the score."""
    return {"vs_random": {"win": win, "draw": draw, "loss": loss}, "score_vs_random": win - loss}


def results_json(report: Any) -> dict[str, Any]:
    """A report's fields as JSON, in their order, with its win, draw and loss against random
    given as :func:`against_random` gives them, where the win stands."""
    out: dict[str, Any] = {}
    for key, value in asdict(report).items():
        if key == "win":
            out.update(against_random(report.win, report.draw, report.loss))
        elif key not in ("draw", "loss"):
            out[key] = value
    return out


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
        return results_json(self)


def _uniform_rows(space: StateSpace, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
    legal = space.next[rows] >= 0
    counts = legal.sum(axis=1, keepdims=True)
    return np.where(legal, 1.0 / np.maximum(counts, 1), 0.0)


def _layers(space: StateSpace) -> list[npt.NDArray[np.intp]]:
    max_ply = int(space.ply.max())
    return [np.flatnonzero((space.ply == p) & ~space.terminal) for p in range(max_ply + 1)]


def _reach(
    policy: npt.NDArray[np.float64],
    side: Player,
    space: StateSpace,
    layers: list[npt.NDArray[np.intp]],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """The probability of each position against a uniformly random opponent, and which
    positions the agent can reach at all (its own possible moves, any opponent moves)."""
    n = space.size
    mine = int(side)
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

    return reach, can_reach


def evaluate_policy(
    policy: npt.NDArray[np.float64], side: Player, solution: Solution
) -> SeatReport:
    """Exact metrics of an N × cells move-probability table played on ``side``."""
    return _judge(policy, side, solution)[0]


def _judge(
    policy: npt.NDArray[np.float64], side: Player, solution: Solution
) -> tuple[SeatReport, npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    """The seat's report, the rows it counts against the optimal share, and each
    position's probability against a random opponent."""
    space = solution.space
    n = space.size
    mine = int(side)
    # Results from the agent's side at the end of the game.
    result = np.zeros(n, dtype=np.int8)
    result[space.winner == mine] = 1
    result[(space.winner != 0) & (space.winner != mine)] = -1

    layers = _layers(space)

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

    reach, can_reach = _reach(policy, side, space, layers)

    decisions = np.flatnonzero(can_reach & ~space.terminal & (space.to_move == mine))
    plays = policy[decisions] > 0
    good = ~(plays & ~solution.optimal[decisions]).any(axis=1)
    final = space.terminal
    report = SeatReport(
        worst_case=int(worst[0]),
        win=float(reach[final & (result == 1)].sum()),
        draw=float(reach[final & (result == 0)].sum()),
        loss=float(reach[final & (result == -1)].sum()),
        optimal_share=float(good.mean()) if decisions.size else 1.0,
        decision_positions=int(decisions.size),
    )
    return report, decisions[~good], reach


@dataclass(frozen=True)
class TableProgress:
    """Where an exact evaluation is: the agent has answered ``answered`` of the
    ``positions`` where ``side`` moves (the whole table's, so the total is known)."""

    side: Player
    answered: int
    positions: int
    seconds: float  # since the evaluation began (solving the table included)


def evaluate_seats(
    agent: Agent,
    geometry: Geometry,
    seats: tuple[Player, ...] | None = None,
    progress: Callable[[TableProgress], None] | None = None,
) -> dict[str, SeatReport]:
    """Exact reports for each seat the agent plays (both by default); ``progress`` is told
    how many of each seat's positions the agent has answered, after each batch."""
    began = time.perf_counter()
    solution = solve_table(geometry)
    chosen = seats if seats is not None else getattr(agent, "seats", (Player.X, Player.O))
    reports: dict[str, SeatReport] = {}
    for side in chosen:

        def told(answered: int, positions: int, side: Player = side) -> None:
            if progress is not None:
                progress(TableProgress(side, answered, positions, time.perf_counter() - began))

        policy = policy_matrix(agent, solution.space, side, told)
        reports[side.name] = evaluate_policy(policy, side, solution)
    return reports


@dataclass(frozen=True)
class Mistake:
    """A position the agent can reach where a move it may play gives away value: one of the
    positions that ``optimal_share`` counts against it."""

    position: str
    to_move: str
    reach: float  # probability of the position against a uniformly random opponent
    value: int  # the position's value for the mover under perfect play
    moves: tuple[int, ...]  # every move the agent may play here
    wrong: tuple[int, ...]  # those that lose value
    right: tuple[int, ...]  # the moves that keep the value
    values: dict[int, int]  # each legal move's exact value for the mover

    def as_json(self) -> dict[str, Any]:
        moves = {key: list(getattr(self, key)) for key in ("moves", "wrong", "right")}
        values = {str(k): v for k, v in self.values.items()}
        return {**asdict(self), **moves, "values": values}


def mistake_report(
    agent: Agent, geometry: Geometry, side: Player, limit: int = 50
) -> tuple[SeatReport, int, list[Mistake]]:
    """The seat's exact report, how many positions count against its optimal share, and
    those positions, most likely first against a random opponent (then earliest), at most
    ``limit`` of them: one policy table and one pass over the game graph for all three."""
    solution = solve_table(geometry)
    space = solution.space
    policy = policy_matrix(agent, space, side)
    report, bad, reach = _judge(policy, side, solution)
    order = np.lexsort((space.ply[bad], -reach[bad]))
    sign = side.sign
    found = []
    for row in bad[order[:limit]]:
        children = space.next[row]
        legal = np.flatnonzero(children >= 0)
        plays = np.flatnonzero(policy[row] > 0)
        optimal = solution.optimal[row]
        found.append(
            Mistake(
                position=Position.from_id(int(space.ids[row]), geometry).to_string("/"),
                to_move=side.name,
                reach=float(reach[row]),
                value=sign * int(solution.value[row]),
                moves=tuple(int(m) for m in plays),
                wrong=tuple(int(m) for m in plays if not optimal[m]),
                right=tuple(int(m) for m in legal if optimal[m]),
                values={int(m): sign * int(solution.value[children[m]]) for m in legal},
            )
        )
    return report, int(bad.size), found


def mistakes(agent: Agent, geometry: Geometry, side: Player, limit: int = 50) -> list[Mistake]:
    """The positions counted against ``agent``'s optimal share on ``side`` (see
    :func:`mistake_report`)."""
    return mistake_report(agent, geometry, side, limit)[2]
