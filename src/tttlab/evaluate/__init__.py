"""Judging agents: exact evaluation over the game graph, the arena and learning curves."""

from tttlab.evaluate.arena import Pairing, Standing, play_game, round_robin
from tttlab.evaluate.exact import (
    Mistake,
    SeatReport,
    evaluate,
    evaluate_policy,
    mistake_report,
    mistakes,
)
from tttlab.evaluate.sampled import SampledReport, sampled_evaluation

__all__ = [
    "Mistake",
    "Pairing",
    "SampledReport",
    "SeatReport",
    "Standing",
    "evaluate",
    "evaluate_policy",
    "mistake_report",
    "mistakes",
    "play_game",
    "round_robin",
    "sampled_evaluation",
]
