"""Sampled evaluation judges each decision exactly (checked against the full table on 3x3)."""

from __future__ import annotations

import numpy as np

from tttlab.agents import PerfectAgent, RandomAgent
from tttlab.evaluation import sampled_evaluation
from tttlab.game import Geometry, Player


def test_perfect_is_judged_optimal_everywhere() -> None:
    g = Geometry()
    report = sampled_evaluation(PerfectAgent(g), g, Player.O, 50, np.random.default_rng(0))
    assert report.optimal_share == 1.0
    assert report.loss == 0.0
    assert report.decisions >= 50


def test_random_is_judged_suboptimal_and_results_add_up() -> None:
    g = Geometry(3, 4, 3)
    report = sampled_evaluation(RandomAgent(g), g, Player.X, 80, np.random.default_rng(1))
    assert 0.0 < report.optimal_share < 1.0
    assert report.win + report.draw + report.loss == 1.0
    assert report.as_json()["games"] == 80
