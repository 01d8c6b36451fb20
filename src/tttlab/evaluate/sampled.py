"""Judging agents on boards too big for whole-graph evaluation, against exact proofs.

The agent plays games against a uniformly random opponent; at each of its decisions the
compiled proof search decides whether the move it plays keeps the position's game value.
The positions are sampled, but each verdict is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tttlab.agents import Agent
from tttlab.game import Geometry, Player, Position
from tttlab.solve.bitboard import prove

__all__ = ["SampledReport", "sampled_evaluation"]


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
        return {
            "games": self.games,
            "vs_random": {"win": self.win, "draw": self.draw, "loss": self.loss},
            "score_vs_random": self.win - self.loss,
            "decisions": self.decisions,
            "optimal_share": self.optimal_share,
        }


def sampled_evaluation(
    agent: Agent, geometry: Geometry, side: Player, games: int, rng: np.random.Generator
) -> SampledReport:
    values: dict[int, int] = {}

    def value(p: Position) -> int:
        found = values.get(p.id)
        if found is None:
            found = prove(p, table_bits=16).value
            values[p.id] = found
        return found

    results = {"win": 0, "draw": 0, "loss": 0}
    decisions = good = 0
    for _ in range(games):
        p = Position.initial(geometry)
        while not p.is_terminal:
            if p.to_move is side:
                probabilities = agent.move_probabilities(p)
                target = value(p)
                decisions += 1
                good += all(value(p.apply(m)) == target for m in probabilities)
                moves = list(probabilities)
                move = moves[int(rng.integers(len(moves)))]
            else:
                legal = p.legal_moves
                move = legal[int(rng.integers(len(legal)))]
            p = p.apply(move)
        key = "draw" if p.winner is None else ("win" if p.winner is side else "loss")
        results[key] += 1
    return SampledReport(
        games=games,
        win=results["win"] / games,
        draw=results["draw"] / games,
        loss=results["loss"] / games,
        decisions=decisions,
        optimal_share=good / decisions if decisions else 1.0,
    )
