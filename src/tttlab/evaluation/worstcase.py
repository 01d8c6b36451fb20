"""A proof of an agent's worst case on boards too big for a table (``ttt eval --prove``).

The worst case of an agent on a seat is the result when the opponent answers best and the
agent's ties are broken against it. Both choices work against the agent, so the worst case
is the worst result of any game the agent can play: −1 if some game reachable with the
agent's moves (any of its tied moves) and any opponent moves ends in a loss, else 0 if one
ends in a draw, else +1. The proof walks exactly that part of the game graph, one ply at a
time: the opponent's every reply, the agent's moves from its policy. Positions met twice in
a ply are one (the transposition table), and the agent is asked about a whole ply at once,
so a network runs one batched forward pass per ply rather than one per position.

Every game the agent can play against a uniformly random opponent lies in the same part of
the graph, so the same walk also gives the exact results against random. The optimal share
needs every position's game value, which only the table has: it is left out (``None``).

A loss is reported with the shortest line that leads to it (the walk goes ply by ply). The
walk then goes on to the end, so that the results against random are exact, unless it has
met ``after_loss`` positions: on a big board a loss proves the worst case at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tttlab.agents import Agent
from tttlab.agents.base import Rows, check_rows, is_deterministic, rows_of
from tttlab.errors import AgentError, TttlabError
from tttlab.evaluation.exact import against_random
from tttlab.game import Geometry, Player, Position
from tttlab.limits import PROOF_BATCH, PROOF_POSITIONS, PROOF_SHARES_POSITIONS

__all__ = [
    "ProofProgress",
    "ProofReport",
    "ProofTooLarge",
    "prove_worst_case",
    "unprovable_reason",
]


class ProofTooLarge(TttlabError):
    """The walk reached its position limit or its time budget before it found a loss or
    reached the end of the game graph: nothing is proved either way."""


@dataclass(frozen=True)
class ProofProgress:
    """Where a proof's walk is: told after each batch the agent is asked about and at the end
    of each ply. The walk's size is not known until it ends, so there is no total to show."""

    side: Player
    ply: int  # moves made before the positions being walked (0 at the empty board)
    positions: int  # distinct positions met so far
    asked: int  # positions of this ply the agent has answered (0 on the opponent's plies)
    frontier: int  # positions still in play at this ply
    seconds: float


@dataclass(frozen=True)
class ProofReport:
    """The proved worst case of one seat, and what the walk found on the way.

    ``vs_random`` figures are exact when the walk finished (``complete``); a walk stopped at
    its limit after finding a loss has proved the worst case only, and they are ``None``.
    """

    worst_case: int
    positions: int  # distinct positions the walk met (every ply, finished games included)
    decision_positions: int  # distinct positions where the agent chose a move
    seconds: float
    line: tuple[int, ...] | None  # the shortest losing line (0-based moves), if any
    final: str | None  # the position it ends in, rows separated by '/'
    complete: bool
    win: float | None
    draw: float | None
    loss: float | None

    @property
    def unbeatable(self) -> bool:
        return self.worst_case >= 0

    def as_json(self) -> dict[str, Any]:
        shares: dict[str, Any] = (
            against_random(self.win, self.draw, self.loss)
            if self.win is not None and self.draw is not None and self.loss is not None
            else {"vs_random": None, "score_vs_random": None}
        )
        return {
            "worst_case": self.worst_case,
            **shares,
            "optimal_share": None,
            "decision_positions": self.decision_positions,
            "proved": True,
            "positions": self.positions,
            "seconds": round(self.seconds, 3),
            "losing_line": None if self.line is None else list(self.line),
            "losing_position": self.final,
        }


def unprovable_reason(agent: Agent) -> str | None:
    """Why ``agent``'s moves cannot be proved, or None when they can: a proof covers the
    moves the agent says it may play, so its answer must be the whole truth about them
    (the agent declares it: ``deterministic``; user code is asked each position twice)."""
    if not is_deterministic(agent):
        return (
            f"{agent.name} is not deterministic: what it plays at a position can change from "
            "one call to the next, so no proof covers every move it may play"
        )
    return None


def prove_worst_case(
    agent: Agent,
    geometry: Geometry,
    side: Player,
    limit: int = PROOF_POSITIONS,
    after_loss: int = PROOF_SHARES_POSITIONS,
    rows: Rows | None = None,
    seconds: float | None = None,
    progress: Callable[[ProofProgress], None] | None = None,
) -> ProofReport:
    """Prove ``agent``'s worst case on ``side`` by walking every game it can play.

    Args:
        agent: a deterministic agent (see :func:`unprovable_reason`); its tied moves are
            all followed.
        geometry: the board, of any size the rules allow.
        side: the seat the agent plays.
        limit: stop after this many positions with no loss found: :class:`ProofTooLarge`.
        after_loss: once a loss is found, stop after this many positions: the worst case
            is proved, and the results against random, which need the whole walk, are
            ``None`` (``complete`` False).
        rows: the agent's move probabilities for a batch of boards and a mover (by default
            from the agent itself).
        seconds: the time budget, looked at between batches of the walk (one batch may
            overrun it): past it with no loss found, :class:`ProofTooLarge`; past it after a
            loss, the worst case is proved and the walk stops as at ``after_loss``.

    Examples:
        >>> from tttlab.agents import make_agent
        >>> from tttlab.game import Geometry, Player
        >>> report = prove_worst_case(make_agent("perfect", Geometry()), Geometry(), Player.O)
        >>> report.worst_case, report.positions, report.line
        (0, 1914, None)
    """
    reason = unprovable_reason(agent)
    if reason:
        raise AgentError(reason)
    ask = rows or rows_of(agent, geometry)
    started = time.perf_counter()
    deadline = None if seconds is None else started + seconds

    def out_of_time() -> bool:
        return deadline is not None and time.perf_counter() > deadline

    def tell(ply: int, positions: int, asked: int, frontier: int) -> None:
        if progress is not None:
            spent = time.perf_counter() - started
            progress(ProofProgress(side, ply, positions, asked, frontier, spent))

    def give_up(positions: int) -> ProofTooLarge:
        return ProofTooLarge(
            f"the proof of {side.name} ran out of time after {positions:,} positions without "
            "finding a loss: nothing is proved either way"
        )

    cells = geometry.cells
    weights = geometry.weights.astype(np.int64)
    mine = int(side)

    ids = np.zeros(1, dtype=np.int64)
    boards = np.zeros((1, cells + 1), dtype=np.int8)  # the last column is always empty
    reach: npt.NDArray[np.float64] = np.ones(1)
    history: list[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]] = []
    positions, decisions = 1, 0
    win = draw = loss = 0.0
    drawn = False
    first_loss: tuple[int, int, int] | None = None  # (ply, parent, move)

    for ply in range(cells):
        if ids.size == 0:
            break
        mover = int(Player.X) if ply % 2 == 0 else int(Player.O)
        legal = boards[:, :cells] == 0
        if mover == mine:
            asked = []
            for s in range(0, ids.size, PROOF_BATCH):
                if s and out_of_time():
                    if first_loss is None:
                        raise give_up(positions)
                    break
                asked.append(ask(boards[s : s + PROOF_BATCH, :cells], mover))
                tell(ply, positions, min(s + PROOF_BATCH, ids.size), ids.size)
            if len(asked) * PROOF_BATCH < ids.size:
                break  # a loss is proved and the time is up: stop as after_loss does
            decisions += ids.size
            probs = np.concatenate(asked)
            check_rows(agent.name, geometry, boards, probs)  # the exact judge's rule too
            probs = probs / probs.sum(axis=1, keepdims=True)
        else:
            probs = legal / legal.sum(axis=1, keepdims=True)
        parent, move = np.nonzero(probs > 0)
        flow = reach[parent] * probs[parent, move]
        child = ids[parent] + mover * weights[move]

        # Did the move win? Only lines through the moved cell can have changed.
        won = np.zeros(parent.size, dtype=np.bool_)
        for s in range(0, parent.size, PROOF_BATCH):
            p, m = parent[s : s + PROOF_BATCH], move[s : s + PROOF_BATCH]
            after = boards[p]
            after[np.arange(p.size), m] = mover
            won[s : s + PROOF_BATCH] = geometry.completes_line(after, m, mover)
        full = ply + 1 == cells
        ended = won | full
        if won.any():
            share = float(flow[won].sum())
            if mover == mine:
                win += share
            else:
                loss += share
                if first_loss is None:
                    at = int(np.flatnonzero(won)[0])
                    first_loss = (ply, int(parent[at]), int(move[at]))
        if full:
            draws = ~won
            draw += float(flow[draws].sum())
            drawn = drawn or bool(draws.any())
        positions += int(np.unique(child[ended]).size)

        going = ~ended
        child, parent, move, flow = child[going], parent[going], move[going], flow[going]
        ids, first, inverse = np.unique(child, return_index=True, return_inverse=True)
        positions += ids.size
        reach = np.bincount(inverse.ravel(), weights=flow, minlength=ids.size).astype(np.float64)
        history.append((parent[first], move[first]))
        boards = boards[parent[first]]
        boards[np.arange(ids.size), move[first]] = mover
        tell(ply + 1, positions, 0, ids.size)
        if first_loss is not None and (positions > after_loss or out_of_time()) and ids.size:
            break
        if out_of_time() and ids.size:
            raise give_up(positions)
        if positions > limit and ids.size:
            raise ProofTooLarge(
                f"the proof met more than {limit:,} positions without finding a loss "
                "(ttt eval --sample judges sampled decisions instead)"
            )

    complete = ids.size == 0
    line: tuple[int, ...] | None = None
    final: str | None = None
    if first_loss is not None:
        ply, parent_index, last = first_loss
        moves = [last]
        index = parent_index
        for back in range(ply - 1, -1, -1):
            parents, moved = history[back]
            moves.append(int(moved[index]))
            index = int(parents[index])
        line = tuple(reversed(moves))
        position = Position.initial(geometry)
        for cell in line:
            position = position.apply(cell)
        final = position.to_string("/")
    worst = -1 if first_loss is not None else (0 if drawn else 1)
    return ProofReport(
        worst_case=worst,
        positions=positions,
        decision_positions=decisions,
        seconds=time.perf_counter() - started,
        line=line,
        final=final,
        complete=complete,
        win=win if complete else None,
        draw=draw if complete else None,
        loss=loss if complete else None,
    )
