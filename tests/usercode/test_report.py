"""What ``ttt check`` reports (:mod:`tttlab.usercode.report`): the JSON schema's fields, in
order; each status, and the exit code of a run, its worst status's."""

from __future__ import annotations

import pytest

from tttlab.usercode.report import EXIT_CODES, CheckReport, FunctionCheck, worst_exit_code


def test_results_round_trip_the_json_schema() -> None:
    report = CheckReport(file="a.py", exercise="cs50", checks={}, coverage=1.0)
    data = report.as_json()
    assert list(data) == [
        "file",
        "exercise",
        "ok",
        "status",
        "coverage",
        "minimax_seconds_empty_board",
        "checks",
        "problems",
        "notes",
        "graded",
        "found",
        "renamed",
        "isolation",
        "limits",
    ]


def test_a_status_says_who_failed_and_a_run_exits_with_its_worst() -> None:
    right = FunctionCheck("player", True, 10, 10, 0, None)
    wrong = FunctionCheck("player", False, 4, 10, 1, None)
    unfinished = FunctionCheck("minimax", False, 4, 10, 0, None)  # slow is not wrong
    assert [c.status for c in (right, wrong, unfinished)] == ["pass", "fail", "incomplete"]
    with pytest.raises(ValueError, match="no pass"):
        CheckReport("a.py", "cs50", {"player": wrong}, 1.0)
    reports = {
        status: CheckReport(
            f"{status}.py", "cs50", {}, 1.0 if status == "pass" else 0.5, status=status
        )
        for status in EXIT_CODES
    }
    assert worst_exit_code([reports["pass"]]) == 0
    assert worst_exit_code([reports["pass"], reports["incomplete"]]) == 3
    assert worst_exit_code([reports["incomplete"], reports["error"]]) == 4
    assert worst_exit_code(list(reports.values())) == 1  # a wrong answer, first of all
    assert worst_exit_code([]) == 0


NONE = "defines none of the exercises (cs50, course); --exercise forces one"


def test_a_report_with_nothing_checked_is_headed_by_its_problem() -> None:
    report = CheckReport("a.py", "", {}, 0.0, problems=(NONE, "a second"), status="fail")
    lines = report.summary().splitlines()
    assert lines == [f"a.py: FAIL: {NONE}", "  problem: a second"]  # never "0 of 0 checks pass"
    assert report.summary(markup=True).startswith(f"a.py: [red]FAIL[/]: {NONE}")
    checked = FunctionCheck("player", False, 4, 10, 1, None)
    checks = {"player": checked}
    with_checks = CheckReport("a.py", "cs50", checks, 0.4, problems=(NONE,), status="fail")
    assert with_checks.summary().startswith("a.py: FAIL, 0 of 1 checks pass")


def test_a_pass_with_something_not_graded_says_so_in_its_first_line() -> None:
    right = FunctionCheck("update", True, 10, 10, 0, None)
    said = "not graded: your GreedyAgent, also agent-like; the checks are Agent's"
    report = CheckReport("a.py", "td-agent", {"update": right}, 1.0, notes=(said,))
    first = report.summary().splitlines()[0]
    assert first.endswith("; not everything graded (see the notes)")
    plain = CheckReport("a.py", "td-agent", {"update": right}, 1.0)
    assert "not everything graded" not in plain.summary()
