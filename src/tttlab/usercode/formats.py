"""The reports of ``ttt check`` in the formats that graders read (``--format``):

- ``gradescope``: Gradescope's ``results.json`` (gradescope-autograders.readthedocs.io,
  "Autograder Specifications"): one test per check with ``score``, ``max_score``,
  ``status``, ``name`` and its counterexample as ``output``; the submission's ``score``,
  ``output``, ``visibility`` and ``execution_time``.
- ``junit``: JUnit XML as GitLab, Jenkins and CodeGrade read it (the schema of Jenkins'
  xUnit plugin, junit-10.xsd): a ``testsuite`` per file, a ``testcase`` per check, a
  ``failure`` carrying the counterexample (an unfinished check is an ``error``).
- ``prairielearn``: PrairieLearn's external grader ``results.json`` (docs,
  "External grading"): ``score`` in [0, 1], ``gradable``, and ``tests`` with ``points``
  and ``max_points``.

Each check is worth its points (1 unless ``--points CHECK=N``) when it passes, else 0: a
check passes on every board or not at all. A submission whose checks did not run counts
the checks of its exercise (when it is known) as failed, so its score is out of the same
total as everyone's.

Who failed decides the rest. The student's failure (the file does not import, answers
garbage, holds no .py file) is a grade: ``fail``, 0. A report's ``error`` is the grader's
(tttlab, the machine, the teacher's options): still 0 on Gradescope and in JUnit (an
``error``), and *not gradable* on PrairieLearn, so that no attempt is used up. Every number
written is finite (strict JSON), and every character of the XML is one XML 1.0 allows.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from tttlab.errors import TttlabError
from tttlab.usercode.exercises import EXERCISES
from tttlab.usercode.report import CheckReport, finite_json

__all__ = [
    "FORMATS",
    "VISIBILITY",
    "gradescope",
    "junit",
    "parse_points",
    "prairielearn",
]

#: ``ttt check --format``: the first three are ``ttt check``'s own (the table, ``--json``,
#: ``--csv``).
FORMATS = ("text", "json", "csv", "gradescope", "junit", "prairielearn")
#: Gradescope's visibility settings.
VISIBILITY = ("hidden", "after_due_date", "after_published", "visible")
#: The most points a check may be worth.
_MOST = 1e6


def parse_points(given: Sequence[str]) -> dict[str, float]:
    """``--points CHECK=N`` (repeatable) as ``{check: points}``; one line for anything else."""
    known = {name for exercise in EXERCISES.values() for name in exercise.functions}
    points: dict[str, float] = {}
    for item in given:
        name, equals, value = item.partition("=")
        name = name.strip()
        if not equals or name not in known:
            raise TttlabError(
                f"--points takes CHECK=N with a check of {', '.join(sorted(known))}; got {item!r}"
            )
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if not 0 <= number <= _MOST:  # NaN fails too
            raise TttlabError(f"--points {name}= needs a number of points from 0, got {value!r}")
        points[name] = number
    return points


def _worth(points: Mapping[str, float] | None) -> dict[str, float]:
    """The points given to :func:`gradescope` or :func:`prairielearn`, each a number from 0
    to a million (so that every score is finite), else a :class:`TttlabError`."""
    worth = dict(points or {})
    for name, number in worth.items():
        if not 0 <= number <= _MOST:  # NaN fails too
            raise TttlabError(f"points for {name} must be a number from 0, got {number!r}")
    return worth


def _checks(report: CheckReport) -> list[str]:
    """The checks a report counts: those it ran, or, when none ran, its exercise's."""
    if report.checks:
        return list(report.checks)
    exercise = EXERCISES.get(report.exercise)
    return [] if exercise is None else list(exercise.functions)


def _earned(report: CheckReport, name: str, worth: float) -> float:
    check = report.checks.get(name)
    return worth if check is not None and check.ok else 0.0


def _status(report: CheckReport, name: str) -> str:
    check = report.checks.get(name)
    return "error" if check is None else check.status


def _named(reports: Sequence[CheckReport], report: CheckReport, name: str) -> str:
    return name if len(reports) == 1 else f"{report.file}: {name}"


def _overall(reports: Sequence[CheckReport], boxes: bool = False) -> str:
    """Each report's summary; ``boxes``: and a line for each file graded without a box."""
    return "\n\n".join(report.summary() + _unboxed(report) * boxes for report in reports)


def _unboxed(report: CheckReport) -> str:
    if report.isolation in ("", "bubblewrap"):  # boxed, or never run (an error before)
        return ""
    return f"\n  graded without a box: {report.isolation}"


def gradescope(
    reports: Sequence[CheckReport],
    points: Mapping[str, float] | None = None,
    visibility: str = "visible",
) -> dict[str, Any]:
    """Gradescope's ``results.json`` for one submission (several files: one test per file
    and check, named ``FILE: CHECK``). Its ``output`` says of a file graded without a box
    (``isolation`` other than bubblewrap) so."""
    if visibility not in VISIBILITY:
        raise TttlabError(f"visibility must be one of {', '.join(VISIBILITY)}")
    worth = _worth(points)
    tests: list[dict[str, Any]] = []
    for report in reports:
        for name in _checks(report):
            full = worth.get(name, 1.0)
            tests.append(
                {
                    "name": _named(reports, report, name),
                    "score": _earned(report, name, full),
                    "max_score": full,
                    "status": "passed" if _status(report, name) == "pass" else "failed",
                    "output": report.check_text(name),
                    "visibility": visibility,
                }
            )
    results = {
        "score": sum(t["score"] for t in tests),
        "execution_time": round(sum(r.seconds for r in reports), 3),  # finite: see CheckReport
        "output": _overall(reports, boxes=True),
        "visibility": visibility,
        "stdout_visibility": "hidden",
        "tests": tests,
    }
    strict: dict[str, Any] = finite_json(results)
    return strict


def prairielearn(
    reports: Sequence[CheckReport], points: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """PrairieLearn's ``results.json`` for one submission. The student's failure (a file
    that does not import, wrong answers, nothing to grade) is gradable and scores 0; only
    the grader's (a report whose status is ``error``) makes it not gradable, with
    ``format_errors`` saying why, so that no attempt is used up. When every check is worth
    0 points, the score is 1 when every check passes, else 0."""
    worth = _worth(points)
    tests: list[dict[str, Any]] = []
    for report in reports:
        for name in _checks(report):
            full = worth.get(name, 1.0)
            ran = name in report.checks
            tests.append(
                {
                    "name": _named(reports, report, name),
                    "description": f"{name} on every reachable board",
                    "points": _earned(report, name, full),
                    "max_points": full,
                    "message": _status(report, name)
                    if ran
                    else "not run: " + "; ".join(report.problems),
                    "output": report.check_text(name),
                }
            )
    total = sum(t["max_points"] for t in tests)
    if total:
        score = min(1.0, sum(t["points"] for t in tests) / total)
    else:
        score = 1.0 if reports and all(report.ok for report in reports) else 0.0
    failed = [r for r in reports if r.status == "error"]
    result: dict[str, Any] = {
        "gradable": not failed,
        "score": score,
        "message": "; ".join(f"{r.file}: {r.status}" for r in reports),
        "output": _overall(reports),
        "tests": tests,
    }
    if failed:
        result["format_errors"] = [
            f"{r.file}: {problem}" if len(reports) > 1 else problem
            for r in failed
            for problem in (r.problems or ("could not be graded",))
        ]
    strict: dict[str, Any] = finite_json(result)
    return strict


def junit(reports: Sequence[CheckReport]) -> bytes:
    """JUnit XML: a ``testsuite`` per file, a ``testcase`` per check (a wrong answer is a
    ``failure`` with the counterexample; a check that did not finish, or a file that could
    not be graded, an ``error``)."""
    root = ET.Element("testsuites", name="ttt check")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for report in reports:
        suite = ET.SubElement(root, "testsuite", name=report.file)
        properties = ET.SubElement(suite, "properties")
        for key, value in (
            ("exercise", report.exercise),
            ("status", report.status),
            ("coverage", f"{report.coverage:.6f}"),
            ("isolation", report.isolation),
        ):
            ET.SubElement(properties, "property", name=key, value=value)
        counts = {"tests": 0, "failures": 0, "errors": 0}
        names = _checks(report) or ["grading"]
        for name in names:
            case = ET.SubElement(suite, "testcase", name=name, classname=report.file)
            counts["tests"] += 1
            status = _status(report, name)
            if status == "pass":
                continue
            text = report.check_text(name) if name in report.checks else _overall([report])
            first = text.splitlines()[0] if text else status
            kind = "failure" if status == "fail" else "error"
            element = ET.SubElement(case, kind, type=status, message=first)
            element.text = text
            counts["failures" if kind == "failure" else "errors"] += 1
        for key, count in counts.items():
            suite.set(key, str(count))
            totals[key] += count
        suite.set("skipped", "0")
        suite.set("time", f"{report.seconds:.3f}")
    for key, count in totals.items():
        root.set(key, str(count))
    root.set("time", f"{sum(r.seconds for r in reports):.3f}")  # finite: see CheckReport
    for element in root.iter():  # what the student's code wrote, the files' names: as XML
        element.attrib = {key: _xml(value) for key, value in element.attrib.items()}
        if element.text:
            element.text = _xml(element.text)
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


#: What XML 1.0 does not allow in a document, escaped or not: the control characters but
#: tab, newline and carriage return, lone surrogates, U+FFFE and U+FFFF.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    """``text`` with each character XML 1.0 does not allow written as its Python escape
    (``\\x1b``, ``\\udc80``, ``\\ufffe``): the report stays well formed, and says it."""
    return _NOT_XML.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
