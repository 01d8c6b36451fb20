"""`ttt train alphazero` and network agents on the command line (small budgets, CPU)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import interrupt_when, start_ttt, ttt
from tttlab.agents.network import NetworkAgent
from tttlab.io import load_agent_file

pytest.importorskip("jax", reason="the neural extra is not installed")

SMALL = ["--episodes", "1024", "--batch", "128", "--seed", "0"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    folder = tmp_path_factory.mktemp("az")
    out = folder / "az.npz"
    result = ttt("train", "alphazero", *SMALL, "--out", str(out), "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    return out, json.loads(result.stdout)


def test_train_json_and_exact_evaluation(trained: tuple[Path, dict[str, object]]) -> None:
    out, summary = trained
    assert summary["algorithm"] == "alphazero"
    assert summary["episodes"] == 1024
    evaluation = summary["evaluation"]
    assert isinstance(evaluation, dict)
    assert evaluation["X"]["vs_random"]["win"] >= 0.9
    again = json.loads(ttt("eval", str(out), "--json").stdout)
    assert again == evaluation
    agent = load_agent_file(out)
    assert isinstance(agent, NetworkAgent)
    assert agent.meta["hyperparameters"]["simulations"] == 32


def test_network_agents_everywhere(trained: tuple[Path, dict[str, object]]) -> None:
    out, _ = trained
    searched = ttt("eval", f"{out}:16", "--as", "X", "--json")
    assert searched.returncode == 0, searched.stderr
    assert set(json.loads(searched.stdout)) == {"X"}
    arena = ttt("arena", str(out), f"{out}:8", "random", "--games", "4", "--json")
    assert arena.returncode == 0, arena.stderr
    policy = json.loads(ttt("policy", str(out), "--json").stdout)
    assert all(moves for moves in policy["moves"].values())
    sampled = json.loads(ttt("eval", str(out), "--sample", "40", "--json").stdout)
    assert sampled["X"]["sampled"] is True
    assert sampled["X"]["decisions"] >= 40
    shown = ttt("play", "--opponent", str(out), "--show-values", "--as", "O", input="q\n")
    assert "move probabilities" in shown.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["train", "alphazero", "--epsilon", "0.1"],
        ["train", "alphazero", "--opponent", "random"],
        ["train", "q", "--episodes", "10", "--simulations", "8"],
        ["train", "alphazero", "--hidden", "12,x"],
        ["train", "alphazero", "--hidden", "0"],
        ["train", "alphazero", "--hidden", "none"],
        ["train", "alphazero", "--conv", "300"],
        ["train", "alphazero", "--conv", "4,4,4,4,4,4,4,4,4"],
        ["train", "q", "--episodes", "10", "--conv", "4"],
        ["eval", "AGENT:x"],
        ["eval", "AGENT:0"],
    ],
)
def test_bad_options_are_one_line(
    args: list[str], trained: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    out, _ = trained
    argv = [a.replace("AGENT", str(out)) for a in args]
    if argv[0] == "train":
        argv += ["--out", str(tmp_path / "x.npz")]
    result = ttt(*argv)
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not (tmp_path / "x.npz").exists()


def test_resume_gives_the_same_file(tmp_path: Path) -> None:
    """A run that writes a checkpoint half-way goes on to the end: resuming from that
    checkpoint must write the very file the run wrote. What the checkpoint fixes cannot be
    changed, and another learner cannot take it. (Every learner resumes through the same
    driver; tests/neural resumes each network trainer in the process, and
    tests/test_reliability.py the tables.) The run is SMALL's but for its length and seed,
    which the compiled iteration does not hold, so JAX's persistent cache serves it; its
    --batch is not the default, so the resumed run must take it from the checkpoint."""
    algorithm, clash, other = "alphazero", ["--simulations", "8"], "dqn"
    args = ["--episodes", "512", "--batch", "128", "--seed", "1"]
    whole, final = tmp_path / "part.npz", tmp_path / "final.npz"
    args += ["--checkpoint-every", "256"]
    first = ttt("train", algorithm, *args, "--out", str(whole), timeout=300)
    assert first.returncode == 0, first.stderr
    checkpoint = tmp_path / "part.ckpt.npz"
    assert load_agent_file(checkpoint).meta["episodes"] == 256
    resume = ["--resume", str(checkpoint)]
    resumed = ttt("train", algorithm, *resume, "--out", str(final), "--json", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["resumed_from"] == 256
    assert summary["hyperparameters"] == load_agent_file(whole).meta["hyperparameters"]
    assert final.read_bytes() == whole.read_bytes()
    assert ttt("train", algorithm, *resume, *clash, "--out", "y").returncode == 2
    wrong = ttt("train", other, *resume, "--out", str(tmp_path / "other.npz"))
    assert wrong.returncode == 2
    assert "not a" in wrong.stderr
    assert "Traceback" not in wrong.stderr


@pytest.mark.slow
def test_ctrl_c_saves_the_network(tmp_path: Path) -> None:
    """Ctrl-C is handled by the one driver for every learner (tests/cli/test_interrupt.py
    interrupts a table learner); here a network learner, mid-run (SMALL's iteration, which
    JAX's persistent cache holds by now)."""
    algorithm = "alphazero"
    out, events = tmp_path / "long.npz", tmp_path / "events.jsonl"
    args = ["--episodes", "100000000", "--batch", "128", "--events", events]
    proc = start_ttt("train", algorithm, *args, "--out", out)
    # once it has compiled and trained some iterations
    stderr = interrupt_when(
        proc, lambda: events.exists() and events.read_text().count('"progress"') >= 3
    )
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    agent = load_agent_file(out)
    assert isinstance(agent, NetworkAgent)
    assert agent.algorithm == algorithm
    assert 0 < agent.meta["episodes"] < 100_000_000


@pytest.mark.slow
def test_a_board_beyond_tables_trains_and_is_proved(tmp_path: Path) -> None:
    """Past the tables (4×5 k=4), judging is a choice: here the proof, which finds where
    this barely trained network can be beaten, on each seat (the sampled judgement is
    tested on 3×3 above). Its network starts with a convolution, which the file keeps
    with the board's width (5 columns, not 4 rows)."""
    out = tmp_path / "big.npz"
    small = [
        "--board",
        "4x5",
        "--k",
        "4",
        "--episodes",
        "16",
        "--batch",
        "16",
        "--simulations",
        "2",
        "--updates",
        "1",
        "--conv",
        "4",
    ]
    result = ttt("train", "alphazero", *small, "--out", str(out), "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["board"] == "4x5k4"
    assert "evaluation" not in summary
    assert summary["hyperparameters"]["conv"] == [4]  # type: ignore[index]
    agent = load_agent_file(out)
    assert agent.geometry.cells == 20
    assert isinstance(agent, NetworkAgent)
    assert (agent.architecture.conv, agent.architecture.columns) == ((4,), 5)
    proved = json.loads(ttt("eval", str(out), "--prove", "--json").stdout)
    for seat in "XO":
        assert proved[seat]["proved"] is True
        assert proved[seat]["worst_case"] == -1
        assert len(proved[seat]["losing_line"]) >= 7
