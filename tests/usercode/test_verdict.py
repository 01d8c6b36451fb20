"""The verdict on what a box sent back (:mod:`tttlab.usercode.verdict`): whose fault each
problem is, said truly. The grader's own failure is ``error`` in its own words; an answer the
worker cannot have given, a call that cost its worker, or a box that ended early is the
submission's ``FAIL``, on the board where it happened."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.usercode.test_protocol import CALLS, DONE, IMPORTED, JOB, SPEC, _graded, _honest
from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.verdict import grade


def test_without_the_callers_last_line_the_box_did_not_finish() -> None:
    raw, status = _graded([IMPORTED, *_honest("winner"), *_honest("player")])
    assert raw.channel is None
    assert not raw.done
    assert status == "fail"
    report = grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC)
    assert report.problems[0].startswith("the box ended before its caller finished")


def test_the_graders_own_failure_is_an_error_in_its_own_words() -> None:
    raw, status = _graded([{"broken": "the box's worker did not start: exit code 1"}, DONE])
    assert status == "error"
    report = grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC)
    assert report.problems == ("could not be graded: the box's worker did not start: exit code 1",)
    assert report.exit_code == 4


@pytest.mark.parametrize(
    ("line", "got"),
    [
        (["v", {"X": 1}], "gave no answer the grader can read"),
        (["v", "nonsense"], "gave no answer the grader can read"),
        (["b", "a line that is not JSON"], "gave no answer the grader can read (a line that"),
        (["k", "exit code 3"], "the process ended during the call (exit code 3)"),
        (["t"], "did not return within the per-call time limit"),
    ],
)
def test_an_answer_the_worker_cannot_have_given_is_the_submissions_wrong_answer(
    line: list[Any], got: str
) -> None:
    lines = [IMPORTED, {"phase": "winner"}, line, {"end": "winner", "printed": 0}, DONE]
    raw, status = _graded(lines)
    assert raw.channel is None
    assert status == "fail"
    report = grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC)
    example = report.checks["winner"].example
    assert example is not None
    assert got in example.got, example.got
