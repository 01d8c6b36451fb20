"""One report for the shapes of one submission (a course folder with its ``Environment`` and
its ``Agent``: ``course+td-agent``)."""

from __future__ import annotations

from typing import Any

from tttlab.usercode.report import CheckReport

__all__ = ["merged"]


#: Which status of two shapes' reports a folder's report takes: the worse.
_SEVERITY = ("pass", "incomplete", "fail", "error")


def merged(reports: list[CheckReport]) -> CheckReport:
    """One report for the shapes of one submission (``course+td-agent``): every shape's
    checks (a name two shapes share is prefixed by its shape), their problems and notes,
    the worst status."""
    checks: dict[str, Any] = {}
    for report in reports:
        for name, check in report.checks.items():
            key = name if name not in checks else f"{report.exercise}.{name}"
            checks[key] = check
    planned = [sum(c.planned for c in r.checks.values()) or 1 for r in reports]
    coverage = sum(r.coverage * n for r, n in zip(reports, planned, strict=True)) / sum(planned)
    notes: list[str] = []
    for report in reports:
        notes += [n for n in report.notes if n not in notes]
    timed = [r.minimax_seconds_empty_board for r in reports if r.minimax_seconds_empty_board]
    return CheckReport(
        file=reports[0].file,
        exercise="+".join(r.exercise or "?" for r in reports),
        checks=checks,
        coverage=min(1.0, coverage),
        minimax_seconds_empty_board=timed[0] if timed else None,
        problems=tuple(
            f"{r.exercise}: {p}" if r.exercise else p for r in reports for p in r.problems
        ),
        notes=tuple(notes),
        seconds=sum(r.seconds for r in reports),
        status=max((r.status for r in reports), key=_SEVERITY.index),
        isolation=reports[0].isolation,
        graded=tuple(dict.fromkeys(g for r in reports for g in r.graded)),
        found={k: v for r in reports for k, v in r.found.items()},
        renamed={k: v for r in reports for k, v in r.renamed.items()},
    )
