"""Judging agents on boards too big for whole-graph evaluation, against exact proofs.

The agent plays games against a uniformly random opponent; at each of its decisions the
compiled proof search decides whether the move it plays keeps the position's game value.
The positions are sampled, but each verdict is exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tttlab.agents import Agent
from tttlab.evaluation.exact import results_json
from tttlab.game import Geometry, Player, Position
from tttlab.solvers.bitboard import ProofTable, prove
from tttlab.solvers.summary import table_bits

__all__ = ["SampledReport", "sampled_decisions", "sampled_evaluation"]


@dataclass(frozen=True)
class SampledReport:
    """Sampled results of one seat against random, with exactly judged decisions."""

    games: int
    win: float
    draw: float
    loss: float
    decisions: int
    optimal_share: float

    def as_json(self) -> dict[str, Any]:
        return results_json(self)


def sampled_evaluation(
    agent: Agent, geometry: Geometry, side: Player, games: int, rng: np.random.Generator
) -> SampledReport:
    """``games`` games of ``agent`` (as ``side``) against random, every decision judged."""
    return _judge(agent, geometry, side, rng, games=games)


def sampled_decisions(
    agent: Agent,
    geometry: Geometry,
    side: Player,
    decisions: int,
    rng: np.random.Generator,
    progress: Callable[[int], None] | None = None,
) -> SampledReport:
    """Games against random until ``decisions`` decisions of ``agent`` have been judged
    (the last game is played to its end, so a few more may be). ``progress`` is called with
    the decisions judged so far after each game."""
    return _judge(agent, geometry, side, rng, decisions=decisions, progress=progress)


def _judge(
    agent: Agent,
    geometry: Geometry,
    side: Player,
    rng: np.random.Generator,
    *,
    games: int | None = None,
    decisions: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> SampledReport:
    values: dict[int, int] = {}
    # One table for every proof of the evaluation, sized for the hardest (the early
    # positions): what one proof finds, the next ones reuse.
    table = ProofTable(table_bits(geometry))

    def value(p: Position) -> int:
        found = values.get(p.id)
        if found is None:
            found = prove(p, table=table).value
            values[p.id] = found
        return found

    results = {"win": 0, "draw": 0, "loss": 0}
    judged = good = played = 0
    # With a decision budget, at most that many games (a game where ``side`` never moves,
    # as on a 1x1 board, must not loop for ever).
    limit = games if games is not None else decisions or 0
    while played < limit and (decisions is None or judged < decisions):
        played += 1
        p = Position.initial(geometry)
        while not p.is_terminal:
            if p.to_move is side:
                probabilities = agent.move_probabilities(p)
                target = value(p)
                judged += 1
                good += all(value(p.apply(m)) == target for m in probabilities)
                moves = list(probabilities)
                move = moves[int(rng.integers(len(moves)))]
            else:
                legal = p.legal_moves
                move = legal[int(rng.integers(len(legal)))]
            p = p.apply(move)
        key = "draw" if p.winner is None else ("win" if p.winner is side else "loss")
        results[key] += 1
        if progress is not None:
            progress(judged)
    return SampledReport(
        games=played,
        win=results["win"] / max(played, 1),
        draw=results["draw"] / max(played, 1),
        loss=results["loss"] / max(played, 1),
        decisions=judged,
        optimal_share=good / judged if judged else 1.0,
    )
