"""``ttt check`` on the command line (:mod:`tttlab.cli.check_cmd`): the counterexample drawn
with a line to reproduce it, a class graded into one table (``--csv``) and JSON lines
(``--json``), one-line refusals with exit 2, and a grade without bubblewrap that says so (the
checks themselves: tests/usercode/test_cs50.py and the other exercises' tests)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import ttt
from tests.usercode.test_cs50 import BUGS, variant
from tttlab.cli import main
from tttlab.usercode import box


def test_ttt_check_draws_the_counterexample_and_a_line_to_reproduce_it(tmp_path: Path) -> None:
    path = variant(tmp_path, BUGS["result-negative-index"][1])
    done = ttt("check", str(path), "--only", "result")
    assert done.returncode == 1, done.stderr
    assert "  result  FAIL" in done.stdout
    assert (
        "reproduce: result([[EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY]]"
        ", (-1, 0)) should raise an exception" in done.stdout
    )
    assert "---+---+---" in done.stdout
    contained = box.isolation()  # without a box, its one line
    assert done.stderr == ("" if contained.boxed else f"ttt check: {contained.describe}\n")


def test_a_class_is_graded_into_one_table_csv_and_json_lines(tmp_path: Path) -> None:
    good = variant(tmp_path, [], "alice.py")
    bad = variant(tmp_path, BUGS["player-inverted"][1], "bob.py")
    table = tmp_path / "grades.csv"
    done = ttt("check", str(good), str(bad), "--only", "player", "--csv", str(table), "--json")
    assert done.returncode == 1, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(Path(r["file"]).name, r["ok"]) for r in lines] == [
        ("alice.py", True),
        ("bob.py", False),
    ]
    assert lines[1]["checks"]["player"]["wrong"] == 4520
    rows = list(csv.DictReader(table.open()))
    assert [(Path(r["file"]).name, r["ok"], r["failed"]) for r in rows] == [
        ("alice.py", "True", ""),
        ("bob.py", "False", "player"),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere.py"], "'nowhere.py' does not exist"),
        (["notes.txt"], "notes.txt is not a Python file (.py)"),
        (["empty"], "no .py file or notebook in empty"),
        (["notes.txt", "--time-limit", "nan"], "is not a finite number"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    args: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "empty").mkdir()
    assert main(["check", *args]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.err.count("\n") == 1
    assert captured.out == ""


def test_without_bubblewrap_the_grade_says_so_or_is_refused(tmp_path: Path) -> None:
    path = variant(tmp_path, [])
    env = dict(os.environ, PATH=str(tmp_path), COLUMNS="100")  # no bwrap on the PATH
    command = [sys.executable, "-m", "tttlab", "check", str(path), "--only", "player"]
    done = subprocess.run([*command, "--json"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    line = "not contained by a box: bubblewrap (bwrap) is not installed"
    assert line in done.stderr
    assert done.stderr.count("\n") == 1
    assert line in json.loads(done.stdout)["isolation"]
    refused = subprocess.run(
        [*command, "--isolation", "required"], capture_output=True, text=True, env=env
    )
    assert refused.returncode == 2
    assert "--isolation required refuses to grade" in refused.stderr
    assert refused.stdout == ""


def test_an_internal_errors_line_is_cut_at_a_word() -> None:
    from tttlab.cli.check_cmd import _one_line

    said = _one_line(ValueError("the grader " * 40))
    assert said.startswith("ValueError: the grader the grader")
    assert said.endswith(" the grader …"), said
    assert len(said) <= len("ValueError: ") + 200
    assert _one_line(ValueError("first\nsecond")) == "ValueError: first …"
