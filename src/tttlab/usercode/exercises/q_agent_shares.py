"""Whether the moves a learning call played at ε > 0 follow the ε-greedy shares of the
Q-learning text (seed 003): with chance ε a cell drawn uniformly from the open ones, else a
greedy one (X the largest value of ``q``, O the smallest, any on a tie).

Each move is one draw whose chances are known given the moves before it: the row of ``q``
it was chosen from is the text's updates replayed along the call
(:mod:`.q_agent_episodes`). The greedy cells count as one outcome, of chance
``1 − ε + ε·g/n`` (``g`` greedy cells of ``n`` open), so that however the code breaks ties
the chances stay exact; each other open cell has ``ε/n``.

The test is a likelihood ratio against a few ways of being wrong (:data:`ALTERNATIVES`:
too greedy, too random, exploring only the other cells, exploring low or high cells more),
each a chance per move that depends only on the moves before it. Under the text's ε-greedy
each ratio, multiplied along the moves, is a nonnegative martingale of mean 1, whatever
path the games take and however many moves they have; so is their average, which by
Ville's inequality ever reaches ``1/β`` with chance at most ``β``. The bound is exact (no
approximation in the tail), so a check whose cases share ``β = 1e-6`` between them has
false alarms at most 1e-6.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["ALTERNATIVES", "Draw", "Verdict", "judged"]


@dataclass(frozen=True)
class Draw:
    """One move: the open cells, the greedy ones among them, the cell played, and whether
    it was the first move of its episode."""

    open: tuple[int, ...]
    greedy: frozenset[int]
    played: int
    first: bool


#: The chance of the move played under a way of being wrong, given ε.
Chance = Callable[[Draw, float], float]


def _greedy_share(draw: Draw, epsilon: float) -> float:
    return 1 - epsilon + epsilon * len(draw.greedy) / len(draw.open)


def _at(draw: Draw, rate: float) -> float:
    """The chance of the move played under ε-greedy at ``rate``."""
    rate = min(1.0, max(0.0, rate))
    if draw.played in draw.greedy:
        return _greedy_share(draw, rate)
    return rate / len(draw.open)


def _explorer(rate: Callable[[float], float]) -> Chance:
    """ε-greedy at another ε, ``rate(ε)``."""
    return lambda draw, epsilon: _at(draw, rate(epsilon))


def _first_greedy(draw: Draw, epsilon: float) -> float:
    """The episode's first move chosen at ε/8 (a SARSA whose first action is greedy), the
    others as the text."""
    return _at(draw, epsilon / 8 if draw.first else epsilon)


def _others_only(draw: Draw, epsilon: float) -> float:
    """Exploring only the cells that are not greedy."""
    others = len(draw.open) - len(draw.greedy)
    if not others:
        return 1.0
    return 1 - epsilon if draw.played in draw.greedy else epsilon / others


def _tilted(slope: float) -> Chance:
    """The text's greedy share, the exploring share spread with weights ``e^(slope·x)``,
    ``x`` from -1 (the lowest cell that is not greedy) to 1 (the highest)."""

    def chance(draw: Draw, epsilon: float) -> float:
        greedy = _greedy_share(draw, epsilon)
        if draw.played in draw.greedy:
            return greedy
        others = [c for c in draw.open if c not in draw.greedy]
        span = max(len(others) - 1, 1)
        weights = [math.exp(slope * (2 * k / span - 1)) for k in range(len(others))]
        return (1 - greedy) * weights[others.index(draw.played)] / sum(weights)

    return chance


#: Each way of being wrong, in words, and its chance of a move.
ALTERNATIVES: tuple[tuple[str, Chance], ...] = (
    ("much too greedy (as at ε/8)", _explorer(lambda e: e / 8)),
    ("too greedy (as at ε/2)", _explorer(lambda e: e / 2)),
    ("the first move of each episode greedy", _first_greedy),
    ("too random (as at (1 + ε)/2)", _explorer(lambda e: (1 + e) / 2)),
    ("exploring only the cells that are not greedy", _others_only),
    ("exploring the low cells more", _tilted(-1.5)),
    ("exploring the high cells more", _tilted(1.5)),
)


@dataclass(frozen=True)
class Verdict:
    """The test's evidence (the average likelihood ratio, as its logarithm), whether it
    rejects, the likeliest way of being wrong, and the greedy moves against their share."""

    log_evidence: float
    rejected: bool
    likeliest: str
    greedy: int
    expected: float
    moves: int


def _log(value: float) -> float:
    return math.log(value) if value > 0 else -math.inf


def judged(draws: Sequence[Draw], epsilon: float, alarm: float) -> Verdict:
    """The moves ``draws`` tested against ε-greedy at ``epsilon`` (> 0): rejected when the
    average likelihood ratio of :data:`ALTERNATIVES` reaches ``1/alarm``, which happens
    with chance at most ``alarm`` when the code is the text's."""
    if not epsilon > 0:
        raise ValueError("the shares are tested at epsilon > 0 only")
    logs = [0.0] * len(ALTERNATIVES)
    greedy, expected = 0, 0.0
    for draw in draws:
        text = _at(draw, epsilon)
        greedy += draw.played in draw.greedy
        expected += _greedy_share(draw, epsilon)
        for k, (_, chance) in enumerate(ALTERNATIVES):
            logs[k] += _log(chance(draw, epsilon)) - math.log(text)
    top = max(logs)
    if top == -math.inf:
        evidence = -math.inf
    else:
        evidence = top + math.log(sum(math.exp(v - top) for v in logs) / len(logs))
    likeliest = ALTERNATIVES[logs.index(top)][0]
    return Verdict(evidence, evidence >= -math.log(alarm), likeliest, greedy, expected, len(draws))
