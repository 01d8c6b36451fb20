"""Learning curves (``tttlab.evaluation.curves``): a sampled record draws only what it measured."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from tttlab.agents import RandomAgent
from tttlab.evaluation import sampled_evaluation
from tttlab.evaluation.curves import plot_curve
from tttlab.game import Geometry, Player


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
