"""``ttt mdp`` through the command line: values, agent files, exports, errors, its own
options, and ``ttt solve --mdp``, which runs it until the next release."""

from __future__ import annotations

import json
import re
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
    result = ttt("mdp", "--as", side, "--method", method, "--json", "--out", str(out))
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
    result = ttt("mdp", "--soft-constraint", *files, "--gamma", "0.9", "--json")
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
    time_greedy = json.loads(ttt("mdp", "--rewards", "time-greedy", "--json").stdout)
    assert time_greedy["rewards"] == "time-greedy"
    vs_perfect = json.loads(ttt("mdp", "--opponent", "perfect", "--json").stdout)
    assert vs_perfect["value"] == pytest.approx(0.0, abs=1e-12)
    text = ttt("mdp", "--as", "O")
    assert "289 decision states" in text.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["mdp", "--gamma", "0"], "'--gamma'"),
        (["mdp", "--gamma", "1.5"], "'--gamma'"),
        (["mdp", "--method", "xx"], "'--method'"),
        (["mdp", "--opponent", "nobody"], "unknown agent"),
        (["mdp", "--out", "/no/such/dir/a.npz"], "does not exist"),
        (["mdp", "--board", "5x5", "--k", "4"], "positions"),
        (["mdp", "--time-limit", "3"], "No such option"),
        (["solve", "--as", "O"], "--as only work with ttt mdp"),
        (["solve", "--explain", "--gamma", "0.5"], "--gamma, --explain only work with ttt mdp"),
    ],
)
def test_bad_arguments(args: list[str], fragment: str) -> None:
    result = ttt(*args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert fragment in lines[0]


def _options(command: str) -> set[str]:
    """The options that ``ttt COMMAND --help`` lists."""
    result = ttt(command, "--help")
    assert result.returncode == 0, result.stderr
    return set(re.findall(r"^  (?:-\w, )?(--[\w-]+)", result.stdout, flags=re.M))


def test_solve_and_mdp_each_list_only_their_own_options() -> None:
    shared = {"--board", "--k", "--json", "--help"}
    assert _options("solve") == shared | {
        "--engine",
        "--positions",
        "--time-limit",
        "--certificate",
        "--checkpoint",
        "--checkpoint-every",
        "--zones",
        "--memory",
    }
    assert _options("mdp") == shared | {
        "--as",
        "--opponent",
        "--method",
        "--gamma",
        "--rewards",
        "--soft-constraint",
        "--tol",
        "--out",
        "--export-dense",
        "--export",
        "--explain",
    }


MOVED = "ttt: warning: ttt solve --mdp moved to ttt mdp; this form goes in the next release"


@pytest.mark.parametrize(
    "args",
    [
        ["--as", "O", "--method", "pi", "--json"],
        ["--rewards", "time-greedy", "--soft-constraint", "--gamma", "0.9", "--json"],
        ["--as", "O", "--explain"],
        ["--opponent", "nobody"],  # an error: the same line and exit code
    ],
)
def test_solve_mdp_says_it_moved_and_runs_ttt_mdp(args: list[str]) -> None:
    old, new = ttt("solve", "--mdp", *args), ttt("mdp", *args)
    assert old.returncode == new.returncode
    assert old.stderr.splitlines() == [MOVED, *new.stderr.splitlines()]
    if "--json" in args:
        assert new.returncode == 0, new.stderr
        moved, own = json.loads(old.stdout), json.loads(new.stdout)
        del moved["seconds"], own["seconds"]  # the only field that may differ
        assert moved == own
    else:
        assert old.stdout == new.stdout


def test_solve_mdp_still_refuses_what_only_solving_reads() -> None:
    result = ttt("solve", "--mdp", "--time-limit", "3")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        MOVED,
        "ttt solve: error: --time-limit only work without --mdp",
    ]
