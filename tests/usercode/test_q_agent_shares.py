"""The test of the moves' ε-greedy shares (:mod:`tttlab.usercode.exercises.q_agent_shares`):
each way of being wrong is a distribution over the outcomes of a move (so that its likelihood
ratio has mean 1 under the text's ε-greedy, which is what bounds the false alarms); moves drawn
as the text draws them are rejected about as rarely as the bound says, and moves that are too
greedy, too random, or that explore unevenly are rejected, the likeliest departure named."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tttlab.usercode.exercises.q_agent_shares import ALTERNATIVES, Draw, judged


def _positions(
    rng: np.random.Generator, count: int
) -> list[tuple[tuple[int, ...], frozenset[int]]]:
    """Random decisions: 2 to 9 open cells, 1 to 3 of them greedy (all of them, sometimes,
    as a new state's row of zeros)."""
    found = []
    for _ in range(count):
        n = int(rng.integers(2, 10))
        cells = tuple(sorted(int(c) for c in rng.choice(9, size=n, replace=False)))
        g = n if rng.random() < 0.1 else int(rng.integers(1, min(3, n) + 1))
        found.append((cells, frozenset(int(c) for c in rng.choice(cells, size=g, replace=False))))
    return found


def _played(
    rng: np.random.Generator,
    positions: list[tuple[tuple[int, ...], frozenset[int]]],
    epsilon: float,
    pick: str = "text",
) -> list[Draw]:
    """A move at each position: as the text's choose_action (a random open cell with chance
    ε, else a greedy one), always greedy, uniformly random, or exploring the lowest cell."""
    draws = []
    for k, (cells, greedy) in enumerate(positions):
        explores = rng.random() < epsilon
        if pick == "greedy" or (pick in ("text", "lowest") and not explores):
            cell = int(rng.choice(sorted(greedy)))
        elif pick == "lowest":
            cell = cells[0]
        else:
            cell = int(rng.choice(cells))
        draws.append(Draw(cells, greedy, cell, k % 7 == 0))
    return draws


def test_each_alternative_is_a_distribution_of_the_moves() -> None:
    rng = np.random.default_rng(1)
    for cells, greedy in _positions(rng, 60):
        for epsilon in (0.1, 0.5, 1.0):
            for first in (False, True):
                outcomes = [sorted(greedy)[0], *(c for c in cells if c not in greedy)]
                for name, chance in ALTERNATIVES:
                    total = sum(chance(Draw(cells, greedy, c, first), epsilon) for c in outcomes)
                    assert math.isclose(total, 1.0), (name, cells, greedy, epsilon)


@pytest.mark.parametrize("epsilon", [0.2, 0.5, 1.0])
def test_the_texts_moves_are_rarely_rejected(epsilon: float) -> None:
    """At a false-alarm bound of 5 %, 100 runs of 150 moves each drawn as the text draws
    them: the rejections are as few as 5 % of 100 allows (more than 13 has a chance below
    1e-3 when the bound holds)."""
    rng = np.random.default_rng(2)
    rejected = 0
    for _ in range(100):
        draws = _played(rng, _positions(rng, 150), epsilon)
        rejected += judged(draws, epsilon, 0.05).rejected
    assert rejected <= 13


@pytest.mark.parametrize(
    ("epsilon", "pick", "likeliest"),
    [
        (0.2, "greedy", "much too greedy"),
        (1.0, "greedy", "much too greedy"),
        (0.3, "random", "too random"),
        (0.5, "lowest", "exploring the low cells more"),
    ],
)
def test_moves_that_break_the_shares_are_rejected(
    epsilon: float, pick: str, likeliest: str
) -> None:
    rng = np.random.default_rng(3)
    draws = _played(rng, _positions(rng, 300), epsilon, pick)
    verdict = judged(draws, epsilon, 1e-6 / 3)
    assert verdict.rejected
    assert verdict.likeliest.startswith(likeliest)
    assert verdict.moves == 300
    if pick == "greedy":
        assert verdict.greedy == 300
        assert verdict.expected < 300


def test_the_evidence_grows_with_the_alarm_asked_for() -> None:
    rng = np.random.default_rng(4)
    draws = _played(rng, _positions(rng, 40), 0.3, "greedy")
    verdict = judged(draws, 0.3, 0.5)
    assert verdict.rejected
    assert not judged(draws, 0.3, math.exp(-verdict.log_evidence) / 2).rejected
    with pytest.raises(ValueError, match="epsilon > 0"):
        judged(draws, 0.0, 0.5)
