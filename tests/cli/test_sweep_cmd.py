"""``ttt sweep`` on this machine: one row per run, resuming, the same figures whatever the
workers, bad input, Ctrl-C (planning: tests/sweep/test_plan.py; the summary:
tests/sweep/test_report.py; the results file: tests/sweep/test_store.py)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.cli.helpers import interrupt_when, start_ttt, ttt
from tttlab.sweep.store import COLUMNS


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def keyed(path: Path) -> dict[tuple[str, ...], dict[str, str]]:
    """Rows by run, without the wall-clock column (the only one that may differ)."""
    out = {}
    for row in rows(path):
        key = (row["algorithm"], row["board"], row["episodes"], row["seed"], row["hyperparameters"])
        assert key not in out, f"row {key} appears twice"
        out[key] = {k: v for k, v in row.items() if k != "seconds"}
    return out


def test_sweep_writes_one_row_per_run_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "sweep.csv"
    plot = tmp_path / "sweep.png"
    args = [
        "sweep",
        "q",
        "td",
        "--episodes",
        "2000,4000",
        "--seeds",
        "0-2",
        "--set",
        "alpha=0.5",
        "--out",
        str(out),
        "--workers",
        "2",
    ]
    first = ttt(*args, "--plot", str(plot), "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["runs"] == report["ran"] == 12
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = rows(out)
    assert len(table) == 12
    assert tuple(table[0]) == COLUMNS
    assert {r["seed"] for r in table} == {"0", "1", "2"}
    summary = {(s["configuration"], s["episodes"]): s for s in report["summary"]}
    assert set(summary) == {(f"{a} alpha=0.5", e) for a in ("q", "td") for e in (2000, 4000)}
    for (label, episodes), s in summary.items():
        algorithm = label.split()[0]
        expected = sum(
            1
            for r in table
            if r["algorithm"] == algorithm
            and int(r["episodes"]) == episodes
            and r["unbeatable"] == "true"
        )
        assert s["unbeatable"] == expected
        assert s["seeds"] == 3
    before = keyed(out)

    again = ttt(*args, "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["ran"] == 0
    assert keyed(out) == before

    # Lose two rows, one of them cut in half as by a crash: only they are run again.
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:-2]) + lines[-1][: len(lines[-1]) // 2])
    third = ttt(*args, "--json")
    assert third.returncode == 0, third.stderr
    assert json.loads(third.stdout)["ran"] == 2
    assert keyed(out) == before


def test_the_same_sweep_gives_the_same_figures(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for path, workers in ((a, "1"), (b, "2")):
        result = ttt(
            "sweep",
            "expected-sarsa",
            "--episodes",
            "1500",
            "--seeds",
            "0-3",
            "--out",
            str(path),
            "--workers",
            workers,
        )
        assert result.returncode == 0, result.stderr
    assert keyed(a) == keyed(b)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["q", "--seeds", "5-2"], "empty"),
        (["q", "--set", "alpha=2"], "alpha"),
        (["nope"], "unknown algorithm"),
        (["q", "--set", "beta=1"], "unknown hyperparameter"),
        (["q", "--address", "127.0.0.1:1"], "cannot reach"),
        (["q", "--address", "nonsense"], "HOST:PORT"),
        (["q", "--board", "5x5", "--k", "4"], "5x5k4"),
        (["q", "--episodes", "0"], "at least 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "x.csv"
    full = ["sweep", *args]
    if "--episodes" not in args:
        full += ["--episodes", "100"]
    result = (
        ttt(*full, "--seeds", "0", "--out", str(out))
        if "--seeds" not in args
        else ttt(*full, "--out", str(out))
    )
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert message in lines[0]
    assert "Traceback" not in result.stderr


def test_ctrl_c_keeps_finished_rows_and_a_rerun_finishes(tmp_path: Path) -> None:
    out = tmp_path / "long.csv"
    args = ["sweep", "q", "--board", "3x4", "--episodes", "400000", "--seeds", "0-3"]
    args += ["--out", str(out), "--workers", "2"]
    proc = start_ttt(*args)
    err = interrupt_when(proc, lambda: out.exists() and len(rows(out)) >= 2, wait=60)
    assert proc.returncode == 130, err
    assert "Interrupted" in err
    assert "Traceback" not in err
    kept = keyed(out)
    assert 2 <= len(kept) < 4  # the two runs that had started are not
    result = ttt(*args, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ran"] == 4 - len(kept)
    final = keyed(out)
    assert len(final) == 4
    assert all(final[key] == value for key, value in kept.items())
