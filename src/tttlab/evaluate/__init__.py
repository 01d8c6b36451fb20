"""Judging agents: exact evaluation over the game graph, the arena and learning curves."""

from tttlab.evaluate.arena import Pairing, Standing, play_game, round_robin
from tttlab.evaluate.exact import SeatReport, evaluate, evaluate_policy

__all__ = [
    "Pairing",
    "SeatReport",
    "Standing",
    "evaluate",
    "evaluate_policy",
    "play_game",
    "round_robin",
]
