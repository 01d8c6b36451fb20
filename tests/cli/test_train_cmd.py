"""``ttt train`` through the command line: the files it writes, and the agents they hold
everywhere else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import refusal, ttt
from tttlab.game import Geometry, Position
from tttlab.solvers import solve_table


@pytest.mark.parametrize("algorithm", ["td", "q", "sarsa"])
def test_course_learners_become_unbeatable_in_200k_episodes(tmp_path: Path, algorithm: str) -> None:
    out = tmp_path / f"{algorithm}.npz"
    result = ttt(
        "train", algorithm, "--episodes", "200000", "--seed", "0", "--out", str(out), "--json"
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["episodes"] == 200_000
    evaluation = json.loads(ttt("eval", str(out), "--json").stdout)
    assert evaluation == summary["evaluation"]
    for seat in ("X", "O"):
        assert evaluation[seat]["worst_case"] == 0
        assert evaluation[seat]["optimal_share"] == 1.0


def test_same_seed_gives_identical_files(tmp_path: Path) -> None:
    paths = [tmp_path / name for name in ("a.npz", "b.npz", "c.npz")]
    for path, seed in zip(paths, ("3", "3", "4"), strict=True):
        assert (
            ttt(
                "train", "sarsa", "--episodes", "5000", "--seed", seed, "--out", str(path)
            ).returncode
            == 0
        )
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


def test_curve_log_and_trained_agent_everywhere(tmp_path: Path) -> None:
    out, curve, log = tmp_path / "q.npz", tmp_path / "curve.png", tmp_path / "log.jsonl"
    result = ttt(
        "train",
        "q",
        "--episodes",
        "20000",
        "--seed",
        "1",
        "--out",
        str(out),
        "--curve",
        str(curve),
        "--log",
        str(log),
        "--eval-every",
        "5000",
    )
    assert result.returncode == 0, result.stderr
    assert curve.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["episode"] for r in records] == [0, 5000, 10000, 15000, 20000]
    assert {"worst_case", "vs_random", "optimal_share"} <= set(records[-1]["X"])

    policy = json.loads(ttt("policy", str(out), "--json").stdout)
    assert len(policy["moves"]) == 4520
    played = ttt("play", "--opponent", str(out), "--show-values", "--as", "O", input="q\n")
    assert played.returncode == 0
    assert "q.npz's values" in played.stdout
    arena = ttt("arena", "perfect", str(out), "random", "--games", "5", "--json")
    data = json.loads(arena.stdout)
    assert len(data["pairings"]) == 6
    assert data["standings"]["perfect"]["loss"] == 0


def test_training_one_seat_against_a_fixed_opponent(tmp_path: Path) -> None:
    out = tmp_path / "x.npz"
    against = ["--opponent", "perfect", "--as", "X"]
    result = ttt("train", "q", "--episodes", "50000", *against, "--out", str(out), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert set(summary["evaluation"]) == {"X"}
    bad = ttt("eval", str(out), "--as", "O")
    assert bad.returncode == 2
    assert "trained to play X only" in bad.stderr
    policy = json.loads(ttt("policy", str(out), "--json").stdout)
    solution = solve_table(Geometry())
    # the policy lists the seat it plays; every position is one where X moves
    assert all(Position.from_string(p).to_move.name == "X" for p in policy["moves"])
    assert len(policy["moves"]) > 0
    assert solution.value[0] == 0


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["train", "q", "--episodes", "0", "--out", "x.npz"], "'--episodes'"),
        (["train", "q", "--episodes", "-5", "--out", "x.npz"], "'--episodes'"),
        (["train", "q", "--episodes", "ten", "--out", "x.npz"], "'--episodes'"),
        (["train", "q", "--episodes", "10", "--alpha", "1.5", "--out", "x.npz"], "'--alpha'"),
        (["train", "q", "--episodes", "10", "--epsilon", "-0.1", "--out", "x.npz"], "'--epsilon'"),
        (["train", "q", "--episodes", "10", "--out", "/nonexistent/dir/x.npz"], "does not exist"),
        (
            ["train", "q", "--episodes", "10", "--board", "6x6", "--k", "4", "--out", "x.npz"],
            "cannot train",
        ),
        (["train", "nope", "--episodes", "10", "--out", "x.npz"], "'nope' is not one of"),
        (["train", "q", "--episodes", "10", "--as", "O", "--out", "x.npz"], "--as needs"),
        (
            ["train", "q", "--episodes", "10", "--alpha-schedule", "linear", "--out", "x.npz"],
            "--alpha-end",
        ),
        (
            [
                "train",
                "q",
                "--episodes",
                "10",
                "--alpha-schedule",
                "linear",
                "--alpha-end",
                "0.1",
                "--out",
                "x.npz",
            ],
            None,
        ),
    ],
)
def test_bad_arguments(tmp_path: Path, args: list[str], fragment: str | None) -> None:
    if fragment is None:  # a complete, valid request
        result = ttt(*args, cwd=str(tmp_path))
        assert result.returncode == 0, result.stderr
        return
    assert fragment in refusal(*args, cwd=str(tmp_path))
