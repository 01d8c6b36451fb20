"""The API's functions (:mod:`tttlab.api.calls`): ``train``, ``solve``, ``arena`` and ``mdp``
give the CLI's figures and files (``evaluate``: tests/api/test_judging.py; ``load``:
tests/api/test_agents.py)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import tttlab
from tests.cli.helpers import ttt


def strip_seconds(data: dict) -> dict:  # type: ignore[type-arg]
    return {k: v for k, v in data.items() if k != "seconds"}


@pytest.mark.parametrize("algorithm", ["dqn"])  # the learners share the driver and the file
def test_train_takes_the_network_learners_and_saves_the_clis_file(
    tmp_path: Path, algorithm: str
) -> None:
    small = {"batch": 64, "updates": 2, "hidden": (16,)}
    agent = tttlab.train(algorithm, episodes=128, seed=3, progress=False, **small)
    result = ttt(
        "train",
        algorithm,
        "--episodes",
        "128",
        "--seed",
        "3",
        "--batch",
        "64",
        "--updates",
        "2",
        "--hidden",
        "16",
        "--out",
        str(tmp_path / "cli.npz"),
        "--json",
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert agent.training is not None
    assert agent.training["hyperparameters"] == summary["hyperparameters"]
    assert agent.evaluation().to_dict() == summary["evaluation"]
    assert agent.save(tmp_path / "api.npz").read_bytes() == (tmp_path / "cli.npz").read_bytes()


def test_train_then_evaluate_equals_ttt_train_json(tmp_path: Path) -> None:
    agent = tttlab.train("td", board="3x3", episodes=8000, seed=3, progress=False)
    result = ttt(
        "train",
        "td",
        "--episodes",
        "8000",
        "--seed",
        "3",
        "--out",
        str(tmp_path / "cli.npz"),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    assert tttlab.evaluate(agent).to_dict() == json.loads(result.stdout)["evaluation"]
    # ... and the same file, byte for byte
    agent.save(tmp_path / "api.npz")
    assert (tmp_path / "api.npz").read_bytes() == (tmp_path / "cli.npz").read_bytes()


def test_hyperparameters_and_curve() -> None:
    agent = tttlab.train(
        "q",
        episodes=4000,
        seed=1,
        alpha=0.3,
        epsilon_end=0.0,
        epsilon_schedule="linear",
        curve=True,
        eval_every=1000,
        progress=False,
    )
    assert agent.meta["hyperparameters"]["alpha"] == {"kind": "constant", "start": 0.3, "end": None}
    assert agent.meta["hyperparameters"]["epsilon"]["kind"] == "linear"
    assert agent.curve is not None
    assert [r["episode"] for r in agent.curve.records] == [0, 1000, 2000, 3000, 4000]
    last = agent.curve.records[-1]
    assert last["X"] == tttlab.evaluate(agent).to_dict()["X"]
    assert agent.curve._repr_png_()[:4] == b"\x89PNG"


def test_solve_equals_ttt_solve_json() -> None:
    for args, board in (([], "3x3"), (["--board", "3x4"], "3x4k3")):
        result = ttt("solve", *args, "--json")
        assert strip_seconds(tttlab.solve(board).to_dict()) == strip_seconds(
            json.loads(result.stdout)
        )
    solved = tttlab.solve("3x3")
    assert solved.positions == 5478
    assert solved.game_tree["games"] == 255_168
    assert tttlab.solve("4x4k4", method="search").value == 0


def test_arena_equals_ttt_arena_json(tmp_path: Path) -> None:
    agent = tttlab.train("q", episodes=2000, seed=0, progress=False)
    path = agent.save(tmp_path / "q.npz")
    result = ttt("arena", "random", "perfect", str(path), "--games", "20", "--seed", "5", "--json")
    api = tttlab.arena(["random", "perfect", str(path)], games=20, seed=5)
    assert api.to_dict() == json.loads(result.stdout)
    assert "<table" in api._repr_html_()


def test_mdp_against_random() -> None:
    as_o = tttlab.mdp(seat="O", opponent="random")
    assert Fraction(as_o.value).limit_denominator(10_000) == Fraction(874, 945)
    assert len(as_o.P) == 9
    assert as_o.R.shape == (as_o.states, 9)
    pi = tttlab.mdp(seat="O", opponent="random", method="pi")
    assert abs(pi.value - as_o.value) < 1e-12
    x = tttlab.mdp()
    assert Fraction(x.value).limit_denominator(10_000) == Fraction(191, 192)
    agent = x.agent()
    assert tttlab.evaluate(agent, seat="X").X.win == pytest.approx(191 / 192)  # type: ignore[union-attr]
    result = ttt("mdp", "--as", "O", "--json")
    assert strip_seconds(as_o.to_dict()) == strip_seconds(json.loads(result.stdout))
