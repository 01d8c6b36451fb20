"""How :mod:`tttlab.usercode.merging` puts the shapes of one submission into one report: every
shape's checks (a name two shapes share is told apart by its shape), the worst status, the
coverage over every planned call, the notes said once."""

from __future__ import annotations

import pytest

from tttlab.usercode.merging import merged
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
