"""``ttt check --format``: Gradescope's and PrairieLearn's results.json and JUnit XML, each
held to its platform's published specification; ``-j``: a class in parallel, the same
verdicts in the same order; the Gradescope autograder of the grading guide, run on a
scratch copy of Gradescope's folders.

The specifications, as the rules checked here:
- Gradescope, "Autograder Specifications" (gradescope-autograders.readthedocs.io/en/latest/
  specs/): an object with optional ``score``, ``execution_time``, ``output``,
  ``visibility``, ``stdout_visibility``, ``extra_data`` and ``tests``; each test with
  ``score``, ``max_score``, ``status`` (``passed`` or ``failed``), ``name``, ``output``,
  ``visibility`` (``hidden``, ``after_due_date``, ``after_published``, ``visible``), ...
- PrairieLearn, "External grading" (docs/externalGrading.md): ``score`` a number in
  [0, 1] when ``gradable``; ``gradable`` a boolean; ``format_errors`` a string or strings;
  ``tests`` with ``name``, ``description``, ``points``, ``max_points``, ``message``,
  ``output``.
- JUnit XML as Jenkins' xUnit plugin's junit-10.xsd describes it (what GitLab and CodeGrade
  read): ``testsuites`` of ``testsuite`` (``name``, ``tests``, ``failures``, ``errors``
  required; ``time`` digits with an optional fraction), each of ``properties`` and
  ``testcase`` (``name`` required); a test case holds ``failure``, ``error`` or
  ``skipped`` elements with ``type`` and ``message`` attributes and text.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.cli.helpers import ttt
from tests.usercode.test_check import BUGS, variant
from tttlab.usercode.formats import gradescope, junit, parse_points, prairielearn
from tttlab.usercode.report import CheckReport, Example, FunctionCheck

ROOT = Path(__file__).resolve().parents[2]
AUTOGRADER = ROOT / "docs" / "autograder" / "gradescope"

_VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
GRADESCOPE = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "score": {"type": "number"},
        "execution_time": {"type": "number", "minimum": 0},
        "output": {"type": "string"},
        "visibility": _VISIBILITY,
        "stdout_visibility": _VISIBILITY,
        "extra_data": {"type": "object"},
        "tests": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["score", "max_score", "status", "name", "output"],
                "properties": {
                    "score": {"type": "number", "minimum": 0},
                    "max_score": {"type": "number", "minimum": 0},
                    "status": {"enum": ["passed", "failed"]},
                    "name": {"type": "string", "minLength": 1},
                    "output": {"type": "string"},
                    "visibility": _VISIBILITY,
                    "number": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "extra_data": {"type": "object"},
                },
            },
        },
    },
}
PRAIRIELEARN = {
    "type": "object",
    "required": ["gradable"],
    "properties": {
        "gradable": {"type": "boolean"},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "message": {"type": "string"},
        "output": {"type": "string"},
        "format_errors": {
            "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
        },
        "tests": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "points", "max_points"],
                "properties": {
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "points": {"type": "number", "minimum": 0},
                    "max_points": {"type": "number", "minimum": 0},
                    "message": {"type": "string"},
                    "output": {"type": "string"},
                },
            },
        },
    },
    "if": {"properties": {"gradable": {"const": True}}},
    "then": {"required": ["score"]},
}
_TIME = re.compile(r"^[0-9]*(\.[0-9]*)?$")


def assert_junit(data: bytes) -> ET.Element:
    """Hold ``data`` to junit-10.xsd's rules (see the module's doc); the root."""
    root = ET.fromstring(data)
    assert root.tag == "testsuites"
    assert set(root.attrib) <= {"name", "time", "tests", "failures", "errors"}
    for suite in root:
        assert suite.tag == "testsuite"
        assert {"name", "tests", "failures", "errors"} <= set(suite.attrib)
        assert _TIME.match(suite.get("time", "")), suite.get("time")
        cases = [child for child in suite if child.tag == "testcase"]
        assert {child.tag for child in suite} <= {"testcase", "properties"}
        for prop in suite.iter("property"):
            assert set(prop.attrib) == {"name", "value"}
        failures = errors = 0
        for case in cases:
            assert case.get("name")
            for outcome in case:
                assert outcome.tag in ("failure", "error", "skipped"), outcome.tag
                assert set(outcome.attrib) <= {"type", "message"}
                failures += outcome.tag == "failure"
                errors += outcome.tag == "error"
        assert int(suite.get("tests", "")) == len(cases)
        assert (int(suite.get("failures", "")), int(suite.get("errors", ""))) == (failures, errors)
    return root


def _check(name: str, ok: bool, example: Example | None = None) -> FunctionCheck:
    return FunctionCheck(name, ok, 10, 10, 0 if ok else 3, example)


WRONG = Example("XXX/OO./...", "utility(board)", "1", "-1", "utility([...]) should return 1")


def _reports() -> list[CheckReport]:
    """A pass, a wrong utility, an unfinished minimax, and a file that does not import."""
    good = CheckReport("alice.py", "cs50", {"utility": _check("utility", True)}, 1.0, seconds=2)
    wrong = {"utility": _check("utility", False, WRONG)}
    bad = CheckReport("bob.py", "cs50", wrong, 1.0, status="fail", seconds=1.5)
    slow = FunctionCheck("minimax", False, 4, 10, 0, None)
    late = CheckReport("carol.py", "cs50", {"minimax": slow}, 0.4, status="incomplete")
    broken = CheckReport(
        "dan.py", "cs50", {}, 0.0, problems=("does not import: SyntaxError",), status="error"
    )
    return [good, bad, late, broken]


def test_gradescope_results_follow_the_specification() -> None:
    reports = _reports()
    results = gradescope(reports, {"utility": 3}, visibility="after_published")
    jsonschema.validate(results, GRADESCOPE)
    tests = {t["name"]: t for t in results["tests"]}
    assert tests["alice.py: utility"]["score"] == tests["alice.py: utility"]["max_score"] == 3
    assert tests["bob.py: utility"] == {
        "name": "bob.py: utility",
        "score": 0.0,
        "max_score": 3,
        "status": "failed",
        "output": tests["bob.py: utility"]["output"],
        "visibility": "after_published",
    }
    assert "should return 1" in tests["bob.py: utility"]["output"]  # the counterexample
    assert tests["carol.py: minimax"]["status"] == "failed"
    # the file that does not import counts every cs50 check, each failed and worth its points
    dan = [t for t in results["tests"] if t["name"].startswith("dan.py")]
    assert len(dan) == 8
    assert all(t["score"] == 0 and "SyntaxError" in t["output"] for t in dan)
    assert results["score"] == 3
    assert results["execution_time"] == 3.5
    assert "does not import" in results["output"]
    alone = gradescope(reports[:1])
    assert [t["name"] for t in alone["tests"]] == ["utility"]  # one file: the check's name


def test_prairielearn_results_follow_the_specification() -> None:
    reports = _reports()
    results = prairielearn(reports[:2], {"utility": 2})
    jsonschema.validate(results, PRAIRIELEARN)
    assert results["gradable"] is True
    assert results["score"] == 0.5
    assert [(t["points"], t["max_points"]) for t in results["tests"]] == [(2, 2), (0.0, 2)]
    broken = prairielearn(reports[3:])
    jsonschema.validate(broken, PRAIRIELEARN)
    assert broken["gradable"] is False  # no attempt is used up by a file that does not import
    assert broken["format_errors"] == ["does not import: SyntaxError"]


def test_junit_follows_the_schema() -> None:
    root = assert_junit(junit(_reports()))
    suites = {suite.get("name"): suite for suite in root}
    assert list(suites) == ["alice.py", "bob.py", "carol.py", "dan.py"]
    failure = suites["bob.py"].find("testcase/failure")
    assert failure is not None
    assert failure.text is not None
    assert "should return 1" in failure.text
    assert suites["carol.py"].find("testcase/error") is not None  # unfinished: an error
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("11", "1", "9")


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["minimax"], "--points takes CHECK=N"),
        (["nothing=2"], "--points takes CHECK=N"),
        (["minimax=-1"], "needs a number of points from 0"),
        (["minimax=nan"], "needs a number of points from 0"),
    ],
)
def test_bad_points_are_one_line(given: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_points(given)
    assert parse_points(["minimax=4", "result=0.5"]) == {"minimax": 4.0, "result": 0.5}


def test_a_class_in_parallel_keeps_the_verdicts_and_the_order(tmp_path: Path) -> None:
    files = [
        variant(tmp_path, [], "alice.py"),
        variant(tmp_path, BUGS["player-inverted"][1], "bob.py"),
        tmp_path / "carol.py",
    ]
    files[2].write_text("def broken(:\n")
    common = ["check", *map(str, files), "--only", "player", "--json"]
    serial, parallel = ttt(*common, "-j", "1"), ttt(*common, "-j", "3")
    assert serial.returncode == parallel.returncode == 1, parallel.stderr

    def verdicts(text: str) -> list[dict[str, Any]]:
        found = [json.loads(line) for line in text.splitlines()]
        return [{k: v for k, v in r.items() if k != "seconds"} for r in found]

    assert verdicts(parallel.stdout) == verdicts(serial.stdout)
    assert [Path(r["file"]).name for r in verdicts(parallel.stdout)] == [f.name for f in files]
    both = ttt("check", str(files[0]), "--json", "--format", "junit")
    assert both.returncode == 2
    assert "two formats" in both.stderr


def test_the_gradescope_autograder_writes_its_results(tmp_path: Path) -> None:
    """The guide's run_autograder, on a scratch copy of Gradescope's folders, with this
    installation's ttt: the results file follows the specification."""
    root = tmp_path / "autograder"
    for folder in ("source", "submission", "results"):
        (root / folder).mkdir(parents=True)
    shutil.copy(AUTOGRADER / "run_autograder", root / "run_autograder")
    variant(root / "submission", BUGS["player-inverted"][1])
    env = {
        **os.environ,
        "AUTOGRADER": str(root),
        "TTT": str(Path(sys.executable).with_name("ttt")),
        "TTT_CHECK_ARGS": "--only player --only winner",
    }
    done = subprocess.run(
        ["bash", str(root / "run_autograder")], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(results, GRADESCOPE)
    assert [(t["name"], t["status"]) for t in results["tests"]] == [
        ("winner", "passed"),
        ("player", "failed"),
    ]
    assert results["score"] == 1
