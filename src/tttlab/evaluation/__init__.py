"""Judging agents: exact evaluation over the game graph, the arena and learning curves."""

from tttlab.evaluation.arena import Pairing, Standing, play_game, round_robin
from tttlab.evaluation.exact import (
    Mistake,
    SeatReport,
    evaluate_policy,
    evaluate_seats,
    mistake_report,
    mistakes,
)
from tttlab.evaluation.sampled import SampledReport, sampled_evaluation

__all__ = [
    "Mistake",
    "Pairing",
    "SampledReport",
    "SeatReport",
    "Standing",
    "evaluate_policy",
    "evaluate_seats",
    "mistake_report",
    "mistakes",
    "play_game",
    "round_robin",
    "sampled_evaluation",
]
