"""``ttt solve --mdp`` through the command line: values, agent files, exports, errors."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from tests.cli.helpers import ttt


@pytest.mark.parametrize(
    ("side", "value", "states"), [("X", 191 / 192, 341), ("O", 874 / 945, 292)]
)
@pytest.mark.parametrize("method", ["vi", "pi"])
def test_values_and_the_written_agent(
    tmp_path: Path, side: str, value: float, states: int, method: str
) -> None:
    out = tmp_path / f"mdp-{side}.npz"
    result = ttt("solve", "--mdp", "--as", side, "--method", method, "--json", "--out", str(out))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["value"] == pytest.approx(value, abs=1e-12)
    assert data["states"] == states
    assert data["decision_states"] == states - 3
    assert data["method"] == method
    assert data["iterations"] >= 1
    report = json.loads(ttt("eval", str(out), "--json").stdout)
    assert set(report) == {side}
    r = report[side]
    assert r["vs_random"]["win"] - r["vs_random"]["loss"] == pytest.approx(value, abs=1e-12)
    if side == "X":
        assert r["vs_random"]["win"] == pytest.approx(191 / 192, abs=1e-12)
        assert r["vs_random"]["loss"] == 0
    if method == "vi":  # an MDP agent file goes everywhere an agent goes (pi writes the same kind)
        policy = json.loads(ttt("policy", str(out), "--json").stdout)["moves"]
        assert policy
        human = "O" if side == "X" else "X"
        assert ttt("play", "--opponent", str(out), "--as", human, input="q\n").returncode == 0


def test_dense_export_loads_in_pymdptoolbox(tmp_path: Path) -> None:
    mdptoolbox = pytest.importorskip("mdptoolbox.mdp")
    dense, sparse = tmp_path / "dense.npz", tmp_path / "sparse.npz"
    files = ["--export-dense", str(dense), "--export", str(sparse)]
    result = ttt("solve", "--mdp", "--soft-constraint", *files, "--gamma", "0.9", "--json")
    assert result.returncode == 0, result.stderr
    ours = json.loads(result.stdout)["value"]
    with np.load(dense) as data:
        P, R, ids = data["P"], data["R"], data["ids"]
    assert P.shape == (341, 341, 9)
    assert P.dtype == np.float64
    assert list(ids[-3:]) == [-1, -2, -3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        solver = mdptoolbox.PolicyIteration(np.transpose(P, (2, 0, 1)), R, 0.9)
        solver.run()
    assert solver.V[0] == pytest.approx(ours, abs=1e-9)
    with np.load(sparse) as data:
        assert list(data["shape"]) == [341, 341, 9]
        assert data["P0_indptr"].shape == (342,)


def test_other_options() -> None:
    time_greedy = json.loads(ttt("solve", "--mdp", "--rewards", "time-greedy", "--json").stdout)
    assert time_greedy["rewards"] == "time-greedy"
    vs_perfect = json.loads(ttt("solve", "--mdp", "--opponent", "perfect", "--json").stdout)
    assert vs_perfect["value"] == pytest.approx(0.0, abs=1e-12)
    text = ttt("solve", "--mdp", "--as", "O")
    assert "289 decision states" in text.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["solve", "--as", "O"], "only work with --mdp"),
        (["solve", "--explain"], "only work with --mdp"),
        (["solve", "--mdp", "--gamma", "0"], "'--gamma'"),
        (["solve", "--mdp", "--gamma", "1.5"], "'--gamma'"),
        (["solve", "--mdp", "--method", "xx"], "'--method'"),
        (["solve", "--mdp", "--opponent", "nobody"], "unknown agent"),
        (["solve", "--mdp", "--out", "/no/such/dir/a.npz"], "does not exist"),
        (["solve", "--mdp", "--board", "5x5", "--k", "4"], "positions"),
        (["solve", "--mdp", "--time-limit", "3"], "--time-limit only work without --mdp"),
        (["solve", "--memory", "64"], "only work with the proof search"),
        (["solve", "--board", "4x4", "--k", "4", "--memory", "8"], "'--memory'"),
        (["solve", "--board", "4x4", "--k", "4", "--time-limit", "0"], "'--time-limit'"),
        (
            ["solve", "--board", "7x4", "--k", "4", "--time-limit", "0.3"],
            "7x4k4 was not proved within the time limit of 0.3 s",
        ),
    ],
)
def test_bad_arguments(args: list[str], fragment: str) -> None:
    result = ttt(*args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert fragment in lines[0]
