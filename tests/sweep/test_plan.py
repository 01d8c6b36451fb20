"""A sweep's plan (``tttlab.sweep.plan``): its parsers, the cross product it checks, and one
run's row, the figures ``ttt train --json`` reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import ttt
from tttlab.game import Geometry
from tttlab.sweep import plan
from tttlab.sweep.plan import Run, SweepError


def test_parsers() -> None:
    assert plan.parse_seeds("0-19") == list(range(20))
    assert plan.parse_seeds("3") == [3]
    assert plan.parse_seeds("0,2,5-7,2") == [0, 2, 5, 6, 7]
    for bad in ("5-2", "a", "-1", "1-", ""):
        with pytest.raises(SweepError):
            plan.parse_seeds(bad)
    assert plan.parse_episodes("5000,10_000,5000") == [5000, 10000]
    for bad in ("0", "1.5", "x", "-3"):
        with pytest.raises(SweepError):
            plan.parse_episodes(bad)
    assert plan.parse_sets(["alpha=0.1,0.5", "epsilon-schedule=linear"]) == {
        "alpha": [0.1, 0.5],
        "epsilon-schedule": ["linear"],
    }
    for bad in (["alpha"], ["alpha="], ["beta=1"], ["alpha=x"], ["alpha=1", "alpha=2"]):
        with pytest.raises(SweepError):
            plan.parse_sets(bad)


def test_plan_is_the_cross_product_and_checks_every_configuration() -> None:
    runs = plan.plan_runs(
        ["q", "td"], Geometry(), [10, 20], [0, 1, 2], {"alpha": [0.1, 0.5], "epsilon": [0.2]}
    )
    assert len(runs) == 2 * 2 * 3 * 2
    assert len(set(runs)) == len(runs)
    assert json.loads(runs[0].hyperparameters) == {"alpha": 0.1, "epsilon": 0.2}
    with pytest.raises(SweepError, match="--gamma does not apply to td"):
        plan.plan_runs(["q", "td"], Geometry(), [10], [0], {"gamma": [0.9]})
    with pytest.raises(SweepError, match="alpha"):
        plan.plan_runs(["q"], Geometry(), [10], [0], {"alpha": [2.0]})
    with pytest.raises(SweepError, match="unknown algorithm"):
        plan.plan_runs(["nope"], Geometry(), [10], [0], {})
    with pytest.raises(SweepError, match="exponential"):
        plan.plan_runs(
            ["q"],
            Geometry(),
            [10],
            [0],
            {"alpha": [0.0], "alpha-schedule": ["exponential"], "alpha-end": [0.1]},
        )


def test_a_row_is_what_ttt_train_json_reports(tmp_path: Path) -> None:
    row = plan.run_one(Run("sarsa", "3x3k3", 3000, 4, '{"alpha":0.3}').as_dict())
    result = ttt(
        "train",
        "sarsa",
        "--episodes",
        "3000",
        "--seed",
        "4",
        "--alpha",
        "0.3",
        "--out",
        str(tmp_path / "a.npz"),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    evaluation = json.loads(result.stdout)["evaluation"]
    for seat in ("X", "O"):
        p = seat.lower()
        assert row[f"{p}_worst_case"] == evaluation[seat]["worst_case"]
        assert row[f"{p}_optimal_share"] == evaluation[seat]["optimal_share"]
        assert row[f"{p}_score_vs_random"] == evaluation[seat]["score_vs_random"]
        assert row[f"{p}_win"] == evaluation[seat]["vs_random"]["win"]
    assert row["unbeatable"] == (row["x_worst_case"] == 0 and row["o_worst_case"] == 0)
