"""How :mod:`tttlab.usercode.grading` puts the shapes of one submission into one report: every
shape's checks (a name two shapes share is told apart by its shape), the worst status, the
coverage over every planned call, ``--name`` pairs given to the shape they name; and a class
graded in threads, whose Python sides take turns outside their boxes."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.usercode.test_cs50 import variant
from tttlab.errors import TttlabError
from tttlab.usercode import grading
from tttlab.usercode.grading import _renames, check_path, merged
from tttlab.usercode.report import CheckReport, FunctionCheck


def _report(exercise: str, checks: dict[str, tuple[int, int, int]], status: str) -> CheckReport:
    """``checks``: each check's (checked, planned, wrong)."""
    made = {
        name: FunctionCheck(name, not wrong and done == planned, done, planned, wrong, None)
        for name, (done, planned, wrong) in checks.items()
    }
    done = sum(c.checked for c in made.values())
    planned = sum(c.planned for c in made.values())
    problems = () if status == "pass" else (f"{exercise} went wrong",)
    return CheckReport(
        file="student",
        exercise=exercise,
        checks=made,
        coverage=done / planned,
        problems=problems,
        notes=("prints while being graded",),
        seconds=1.5,
        status=status,
        graded=(f"{exercise}.py",),
    )


def test_two_shapes_make_one_report_with_every_check_and_the_worse_status() -> None:
    course = _report("course", {"winner": (10, 10, 0), "reward": (20, 20, 0)}, "pass")
    agent = _report("td-agent", {"update": (3, 4, 1), "winner": (5, 10, 0)}, "fail")
    both = merged([course, agent])
    assert both.exercise == "course+td-agent"
    assert list(both.checks) == ["winner", "reward", "update", "td-agent.winner"]
    assert both.checks["td-agent.winner"].checked == 5
    assert both.status == "fail"
    assert not both.ok
    assert both.coverage == pytest.approx((30 + 8) / (30 + 14))
    assert both.problems == ("td-agent: td-agent went wrong",)
    assert both.notes == ("prints while being graded",)  # said once
    assert both.seconds == 3.0
    assert both.graded == ("course.py", "td-agent.py")
    assert "\n  shapes: course and td-agent, each graded\n" in both.summary()


@pytest.mark.parametrize(
    ("statuses", "worst"),
    [
        (("pass", "pass"), "pass"),
        (("pass", "incomplete"), "incomplete"),
        (("incomplete", "fail"), "fail"),
        (("fail", "error"), "error"),
    ],
)
def test_the_report_of_several_shapes_takes_the_worst_status(
    statuses: tuple[str, str], worst: str
) -> None:
    reports = [
        _report(s, {f"check{k}": (1, 1, 0) if st == "pass" else (0, 1, 0)}, st)
        for k, (s, st) in enumerate(zip(("course", "td-agent"), statuses, strict=True))
    ]
    assert merged(reports).status == worst


def test_name_pairs_go_to_the_shape_that_has_the_name() -> None:
    assert _renames(("board=tiles", "Agent=Learner"), ["course", "td-agent"]) == {
        "board": "tiles",
        "Agent": "Learner",
    }
    with pytest.raises(TttlabError, match="not a name of the course or td-agent exercise"):
        _renames(("nothing=here",), ["course", "td-agent"])


def test_a_class_graded_in_threads_takes_turns_outside_its_boxes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ttt check`` grades a class several submissions at a time, in threads. Their boxes
    run side by side, but their Python sides take turns: CPython 3.11 keeps the syntax-tree
    builder's depth for the whole interpreter, and two threads building trees at once (one
    reading a submission with ``ast.parse``, one loading a table, whose headers numpy reads
    with ``ast.literal_eval``) ended 5 of 32 runs of ``ttt check`` on two files with
    "internal error: SystemError: AST constructor recursion depth mismatch"."""
    counts = {"reading": 0, "boxes": 0}
    most = dict(counts)
    lock = threading.Lock()

    def counted(what: str, wait: float, real: Any) -> Any:
        def run(*args: Any) -> Any:
            with lock:
                counts[what] += 1
                most[what] = max(most[what], counts[what])
            time.sleep(wait)  # time for another thread to come in, if it may
            try:
                return real(*args)
            finally:
                with lock:
                    counts[what] -= 1

        return run

    monkeypatch.setattr(grading, "scan", counted("reading", 0.2, grading.scan))
    monkeypatch.setattr(grading, "run_job", counted("boxes", 0.5, grading.run_job))
    files = [variant(tmp_path, [], f"student{i}.py") for i in range(3)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        reports = list(pool.map(lambda f: check_path(f, only=("player",)), files))
    assert [r.ok for r in reports] == [True, True, True]
    assert most == {"reading": 1, "boxes": 3}
