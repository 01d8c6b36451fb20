"""`ttt train dqn` on the command line: the same surface as `ttt train q` (CPU, small)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import ttt
from tttlab.agents.network import NetworkAgent
from tttlab.io import load_agent_file

pytest.importorskip("jax", reason="the neural extra is not installed")

SMALL = ["--episodes", "2048", "--seed", "0"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object], Path]:
    folder = tmp_path_factory.mktemp("dqn")
    out, log = folder / "dqn.npz", folder / "curve.jsonl"
    options = [
        "--epsilon",
        "1.0",
        "--epsilon-end",
        "0.1",
        "--gamma",
        "0.99",
        "--eval-every",
        "1024",
    ]
    files = ["--log", str(log), "--out", str(out)]
    result = ttt("train", "dqn", *SMALL, *options, *files, "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    return out, json.loads(result.stdout), log


def test_train_json_and_exact_evaluation(trained: tuple[Path, dict[str, object], Path]) -> None:
    out, summary, _ = trained
    assert summary["algorithm"] == "dqn"
    assert summary["episodes"] == 2048
    hyper = summary["hyperparameters"]
    assert isinstance(hyper, dict)
    assert hyper["epsilon"] == {"kind": "linear", "start": 1.0, "end": 0.1}
    assert (hyper["gamma"], hyper["double"], hyper["perspective"]) == (0.99, True, "mover")
    evaluation = summary["evaluation"]
    assert isinstance(evaluation, dict)
    assert evaluation["X"]["vs_random"]["win"] >= 0.85
    assert json.loads(ttt("eval", str(out), "--json").stdout) == evaluation
    agent = load_agent_file(out)
    assert isinstance(agent, NetworkAgent)
    assert agent.architecture.head == "q"
    assert agent.meta["hyperparameters"] == hyper


def test_the_log_holds_exact_points(trained: tuple[Path, dict[str, object], Path]) -> None:
    _out, summary, log = trained
    points = [json.loads(line) for line in log.read_text().splitlines()]
    assert [p["episode"] for p in points] == [0, 1024, 2048]
    evaluation = summary["evaluation"]
    assert isinstance(evaluation, dict)
    last = points[-1]
    assert last["X"]["optimal_share"] == evaluation["X"]["optimal_share"]
    assert last["O"]["worst_case"] == evaluation["O"]["worst_case"]


def test_the_agent_goes_everywhere(trained: tuple[Path, dict[str, object], Path]) -> None:
    out, _, _ = trained
    policy = json.loads(ttt("policy", str(out), "--json").stdout)
    assert policy["board"] == "3x3k3"
    for text, moves in policy["moves"].items():
        assert moves
        assert all(text[m] == "." for m in moves)
    arena = ttt("arena", str(out), "random", "--games", "4", "--json")
    assert arena.returncode == 0, arena.stderr
    shown = ttt("play", "--opponent", str(out), "--show-values", "--as", "O", input="q\n")
    assert shown.returncode == 0, shown.stderr
    assert "values" in shown.stdout
    x_side = ttt("eval", str(out), "--as", "X", "--json")
    assert set(json.loads(x_side.stdout)) == {"X"}


@pytest.mark.parametrize(
    "args",
    [
        ["train", "dqn", "--simulations", "8"],
        ["train", "dqn", "--epochs", "2"],
        ["train", "dqn", "--opponent", "random"],
        ["train", "dqn", "--perspective", "o"],
        ["train", "dqn", "--gamma", "1.5"],
        ["train", "dqn", "--epsilon-schedule", "cosine"],
        ["train", "dqn", "--target-every", "0"],
        ["train", "alphazero", "--target-every", "4"],
        ["train", "q", "--episodes", "10", "--double"],
        ["train", "q", "--episodes", "10", "--updates", "4"],
    ],
)
def test_bad_options_are_one_line(args: list[str], tmp_path: Path) -> None:
    result = ttt(*args, "--out", str(tmp_path / "x.npz"))
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "x.npz").exists()
