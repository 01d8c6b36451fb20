"""Judging agents: exact evaluation over the game graph, the arena and learning curves."""

from tttlab.evaluate.arena import Pairing, Standing, play_game, round_robin
from tttlab.evaluate.exact import SeatReport, evaluate, evaluate_policy
from tttlab.evaluate.sampled import SampledReport, sampled_evaluation

__all__ = [
    "Pairing",
    "SampledReport",
    "SeatReport",
    "Standing",
    "evaluate",
    "evaluate_policy",
    "play_game",
    "round_robin",
    "sampled_evaluation",
]
