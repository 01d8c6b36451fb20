"""Judging agents: exact evaluation over the game graph, the arena and learning curves."""

from tttlab.evaluation.arena import Pairing, Standing, play_game, round_robin
from tttlab.evaluation.exact import (
    Mistake,
    SeatReport,
    TableProgress,
    evaluate_policy,
    evaluate_seats,
    mistake_report,
    mistakes,
)
from tttlab.evaluation.sampled import SampledReport, sampled_evaluation
from tttlab.evaluation.worstcase import (
    ProofProgress,
    ProofReport,
    ProofTooLarge,
    prove_worst_case,
    unprovable_reason,
)

__all__ = [
    "Mistake",
    "Pairing",
    "ProofProgress",
    "ProofReport",
    "ProofTooLarge",
    "SampledReport",
    "SeatReport",
    "Standing",
    "TableProgress",
    "evaluate_policy",
    "evaluate_seats",
    "mistake_report",
    "mistakes",
    "play_game",
    "prove_worst_case",
    "round_robin",
    "sampled_evaluation",
    "unprovable_reason",
]
