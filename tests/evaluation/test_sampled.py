"""Sampled evaluation judges each decision exactly (checked against the full table on 3x3)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from tttlab.agents import PerfectAgent, RandomAgent
from tttlab.evaluation import sampled_evaluation
from tttlab.evaluation.curves import plot_curve
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


def test_a_sampled_curve_draws_only_what_it_measured(tmp_path: Path) -> None:
    """A sampled record has no worst case: the plot leaves that panel out instead of drawing
    an empty one (matplotlib warned "No artists with labels found to put in legend")."""
    g, rng = Geometry(3, 4, 3), np.random.default_rng(2)
    record = {
        "episode": 0,
        "sampled": True,
        "X": sampled_evaluation(RandomAgent(g), g, Player.X, 20, rng).as_json(),
    }
    assert "worst_case" not in record["X"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot_curve([record, {**record, "episode": 10}], tmp_path / "curve.png", "sampled")
    assert (tmp_path / "curve.png").stat().st_size > 0
