"""The grader believes nothing on the results channel, although the box's caller writes all
of it: every line is checked for its type, its range and its phase, and a line the caller
cannot have written is the grader's failure (``error``, "could not be graded"), never a pass,
never the student's fail and never an exception in the grader. A value in no form the worker
writes came from the submission: a wrong answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises import EXERCISES
from tttlab.usercode.grading import _planned
from tttlab.usercode.sandbox import Job, RawRun
from tttlab.usercode.verdict import grade

SPEC = EXERCISES["cs50"]
CALLS, PHASES = _planned("cs50", ("player", "winner"))
JOB = Job(Path("t.py"), "cs50", "import", ("t.py",), SPEC.names, PHASES, (), (), 60, 512)
IMPORTED = {"import": ["v"], "missing": [], "skipped": [], "printed": 0}
DONE = {"done": True}


def _honest(function: str) -> list[Any]:
    truth = exercise_truth()
    cases = CALLS.cases[function]
    answer = truth.to_move if function == "player" else truth.winner
    return [
        {"phase": function},
        *(["v", answer[c.rank]] for c in cases),
        {"end": function, "printed": 0, "first_print": ""},
    ]


def _graded(lines: list[Any]) -> tuple[RawRun, str]:
    raw = RawRun()
    raw.read(JOB, [json.dumps(line).encode() for line in lines])
    return raw, grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC).status


def test_the_honest_runners_lines_are_graded() -> None:
    raw, status = _graded([IMPORTED, *_honest("winner"), *_honest("player"), DONE])
    assert raw.channel is None
    assert status == "pass"


FORGED = {
    "a print count that is text first": [{"printed": "a"}],
    "a result before the import": [["v", "X"]],
    "a result outside a check": [IMPORTED, ["v", "X"]],
    "a check that was not planned": [IMPORTED, {"phase": "minimax"}],
    "checks out of order": [IMPORTED, *_honest("player"), {"phase": "winner"}],
    "a check twice": [IMPORTED, *_honest("player"), {"phase": "player"}],
    "more results than calls": [IMPORTED, *_honest("player")[:-1], ["v", "X"]],
    "an outcome of no kind": [IMPORTED, {"phase": "player"}, ["q", 1]],
    "a value missing": [IMPORTED, {"phase": "player"}, ["v"]],
    "an error that is not text": [IMPORTED, {"phase": "player"}, ["e", 5]],
    "an outcome of the caller's without its text": [IMPORTED, {"phase": "player"}, ["k"]],
    "a line after the last": [IMPORTED, DONE, {"phase": "player"}],
    "an import of no known kind": [{"import": ["q"]}],
    "the end of another check": [IMPORTED, {"phase": "player"}, {"end": "winner"}],
    "a print count going down": [{**IMPORTED, "printed": 5}, {"end": "x", "printed": 1}],
    "a mark of no kind": [IMPORTED, {"shape": "cs50"}],
    "a line that is not an object": [IMPORTED, 7],
}


@pytest.mark.parametrize("forged", sorted(FORGED))
def test_a_line_the_runner_cannot_have_written_is_never_graded(forged: str) -> None:
    raw, status = _graded(FORGED[forged])
    assert status == "error"
    report = grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC)
    assert report.problems[0].startswith(
        "could not be graded: internal error in ttt check: the box's channel could not be read"
    )
    assert report.checks == {}


def test_a_line_that_is_not_json_stops_the_reading() -> None:
    raw = RawRun()
    raw.read(JOB, [json.dumps(IMPORTED).encode(), b"\xff{not json"])
    assert raw.channel is not None
    assert raw.channel.startswith("line 2:")
