"""The verdict on what a box sent back (:mod:`tttlab.usercode.verdict`): whose fault each
problem is, said truly. The grader's own failure is ``error`` in its own words; an answer the
worker cannot have given, a call that cost its worker, or a box that ended early is the
submission's ``FAIL``, on the board where it happened; the time limit, the clock's, is never
the student's fail: ``incomplete``, with what the box had of the machine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.usercode.test_protocol import CALLS, DONE, IMPORTED, JOB, SPEC, _graded, _honest
from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.processes import Usage
from tttlab.usercode.sandbox import RawRun
from tttlab.usercode.verdict import BUSY, grade, own_modules


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


@pytest.mark.parametrize(
    ("lines", "where"),
    [
        ([], "before the box was ready"),
        ([{"started": True}], "while the module was imported"),
    ],
    ids=["box-starting", "importing"],
)
def test_a_time_limit_before_the_import_finished_is_incomplete_never_a_fail(
    lines: list[Any], where: str
) -> None:
    """The time limit is the clock's: reached before the box started or during the import
    (whose own limit, in its own time, had not come), the file is not the student's fail."""
    raw = RawRun()
    raw.read(JOB, [json.dumps(line).encode() for line in lines])
    raw.timed_out = True
    raw.usage = Usage(cpu=1.2, waited=40.0)
    report = grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC)
    assert report.status == "incomplete"
    assert report.exit_code == 3
    assert report.problems == (f"stopped at the time limit (60 s) {where}",)
    assert report.notes == (
        "the machine was busy: the box got 1.2 s of CPU time in its 60 s on the clock, "
        "and waited 40.0 s for a CPU",
    )


def test_a_time_limit_in_a_check_says_what_the_box_had_of_the_machine() -> None:
    lines = [IMPORTED, *_honest("winner"), {"phase": "player"}]
    raw = RawRun()
    raw.read(JOB, [json.dumps(line).encode() for line in lines])
    raw.timed_out = True
    raw.usage = Usage(cpu=58.0, waited=1.0)  # a quiet machine: the time was the file's
    report = grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC)
    assert report.status == "incomplete"
    assert report.problems[0].startswith("stopped at the time limit (60 s) in player")
    assert "at the time limit: the box got 58.0 s of CPU time in its 60 s on the clock" in (
        report.notes
    )
    raw.usage = Usage(cpu=20.0, waited=None)  # the kernel does not say how long it waited
    notes = grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC).notes
    assert "at the time limit: the box got 20.0 s of CPU time in its 60 s on the clock" in notes
    raw.usage = Usage(cpu=20.0, waited=BUSY * 60)
    notes = grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC).notes
    assert any(note.startswith("the machine was busy: the box got 20.0 s") for note in notes)


def test_a_line_of_top_level_code_not_run_is_named_once() -> None:
    skipped = ["t.py line 9", "t.py line 9", "t.py lines 10-12"]  # `train(); play()`: one line
    raw, _ = _graded([{**IMPORTED, "skipped": skipped}, *_honest("winner"), *_honest("player")])
    report = grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC)
    assert "loaded definitions only; top-level code not run: t.py line 9, t.py lines 10-12" in (
        report.notes
    )


def test_a_module_of_the_submissions_own_is_never_called_not_installed(tmp_path: Path) -> None:
    """``tick_tack_toe/agent.py`` imports ``tick_tack_toe``, the folder that holds it: Python
    does not find it from inside, and a stub stands in; a module inside a folder graded is
    the student's too. Neither is "not installed"; a library that is not is."""
    package = tmp_path / "repo" / "tick_tack_toe"
    (package / "lib").mkdir(parents=True)
    (package / "agent.py").write_text("import tick_tack_toe\n")
    (package / "lib" / "consts.py").write_text("LENGTH = 3\n")
    assert set(own_modules(["tick_tack_toe", "consts", "tqdm"], package / "agent.py")) == {
        "tick_tack_toe"
    }
    assert own_modules(["consts", "tqdm"], package) == {
        "consts": "the submission's lib/consts.py, not found where it was imported"
    }
    failed = "ModuleNotFoundError: tick_tack_toe.LENGTH: tick_tack_toe is not installed (a stub"
    lines = [
        {**IMPORTED, "stubbed": ["tick_tack_toe", "tqdm"]},
        {"phase": "winner"},
        *(["e", f"{failed} stood in)"] for _ in CALLS.cases["winner"]),
        {"end": "winner", "printed": 0},
        *_honest("player"),
    ]
    raw, _ = _graded(lines)
    report = grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC, package / "agent.py")
    notes = "\n".join(report.notes)
    assert "not installed, stood in by stubs: tqdm (" in notes
    assert "tick_tack_toe is the folder that holds agent.py, which Python does not find" in notes
    assert "not installed, stood in by stubs: tick_tack_toe" not in notes
    example = report.checks["winner"].example
    assert example is not None
    assert "tick_tack_toe, the submission's own, was not found where it was imported" in (
        example.got
    )
    assert "is not installed" not in example.got + example.repro
