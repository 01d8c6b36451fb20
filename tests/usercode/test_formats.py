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

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from xml.dom import minidom

import jsonschema
import pytest
import xmlschema

from tests.cli.helpers import ttt
from tests.usercode.test_cs50 import BUGS, variant
from tttlab.cli import check_cmd, main
from tttlab.usercode.formats import FORMATS, gradescope, junit, parse_points, prairielearn
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
#: The rules above as an XML Schema, for a second parser (xmlschema) to hold the XML to.
JUNIT_XSD = xmlschema.XMLSchema("""<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:simpleType name="time">
    <xs:restriction base="xs:string"><xs:pattern value="[0-9]*(\\.[0-9]*)?"/></xs:restriction>
  </xs:simpleType>
  <xs:complexType name="outcome" mixed="true">
    <xs:attribute name="type" type="xs:string"/>
    <xs:attribute name="message" type="xs:string"/>
  </xs:complexType>
  <xs:complexType name="property">
    <xs:attribute name="name" type="xs:string" use="required"/>
    <xs:attribute name="value" type="xs:string" use="required"/>
  </xs:complexType>
  <xs:complexType name="properties">
    <xs:sequence>
      <xs:element name="property" type="property" minOccurs="0" maxOccurs="unbounded"/>
    </xs:sequence>
  </xs:complexType>
  <xs:complexType name="testcase">
    <xs:choice minOccurs="0" maxOccurs="unbounded">
      <xs:element name="failure" type="outcome"/>
      <xs:element name="error" type="outcome"/>
      <xs:element name="skipped" type="outcome"/>
    </xs:choice>
    <xs:attribute name="name" type="xs:string" use="required"/>
    <xs:attribute name="classname" type="xs:string"/>
    <xs:attribute name="time" type="time"/>
  </xs:complexType>
  <xs:complexType name="testsuite">
    <xs:choice minOccurs="0" maxOccurs="unbounded">
      <xs:element name="properties" type="properties"/>
      <xs:element name="testcase" type="testcase"/>
    </xs:choice>
    <xs:attribute name="name" type="xs:string" use="required"/>
    <xs:attribute name="tests" type="xs:nonNegativeInteger" use="required"/>
    <xs:attribute name="failures" type="xs:nonNegativeInteger" use="required"/>
    <xs:attribute name="errors" type="xs:nonNegativeInteger" use="required"/>
    <xs:attribute name="skipped" type="xs:nonNegativeInteger"/>
    <xs:attribute name="time" type="time"/>
  </xs:complexType>
  <xs:element name="testsuites">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="testsuite" type="testsuite" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence>
      <xs:attribute name="name" type="xs:string"/>
      <xs:attribute name="time" type="time"/>
      <xs:attribute name="tests" type="xs:nonNegativeInteger"/>
      <xs:attribute name="failures" type="xs:nonNegativeInteger"/>
      <xs:attribute name="errors" type="xs:nonNegativeInteger"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
""")


def strict_json(text: str) -> Any:
    """``text`` read as strict JSON: no NaN, no Infinity."""

    def refuse(constant: str) -> None:
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def assert_junit(data: bytes) -> ET.Element:
    """Hold ``data`` to junit-10.xsd's rules (see the module's doc), read by three parsers
    (ElementTree, minidom, xmlschema against :data:`JUNIT_XSD`); the root."""
    minidom.parseString(data)
    JUNIT_XSD.validate(data.decode())
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
        "dan.py", "cs50", {}, 0.0, problems=("does not import: SyntaxError",), status="fail"
    )
    return [good, bad, late, broken]


#: A file the grader failed on (``error``: tttlab's, the machine's, never the student's).
UNGRADED = CheckReport(
    "erin.py",
    "",
    {},
    0.0,
    problems=("could not be graded: internal error in ttt check (MemoryError)",),
    status="error",
)


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
    # a file that does not import is the student's failure: graded, 0
    assert (broken["gradable"], broken["score"]) == (True, 0.0)
    assert "format_errors" not in broken
    ungraded = prairielearn([reports[0], UNGRADED])
    jsonschema.validate(ungraded, PRAIRIELEARN)
    assert ungraded["gradable"] is False  # the grader's failure: no attempt is used up
    assert ungraded["format_errors"] == [f"erin.py: {UNGRADED.problems[0]}"]
    # every check worth nothing: 1 when every check passes, else 0
    assert prairielearn(reports[:1], {"utility": 0})["score"] == 1.0
    assert prairielearn(reports[:2], {"utility": 0})["score"] == 0.0
    with pytest.raises(ValueError, match="points for utility must be a number from 0"):
        prairielearn(reports[:1], {"utility": float("nan")})


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


def run_autograder(root: Path, ttt_command: str) -> dict[str, Any]:
    """The guide's run_autograder on the scratch copy of Gradescope's folders at ``root``,
    with ``ttt_command`` as its ttt: what it left in results.json (held to the
    specification, as strict JSON)."""
    shutil.copy(AUTOGRADER / "run_autograder", root / "run_autograder")
    (root / "results").mkdir(exist_ok=True)
    env = {
        **os.environ,
        "AUTOGRADER": str(root),
        "TTT": ttt_command,
        "TTT_CHECK_ARGS": "--only player --only winner",
    }
    done = subprocess.run(
        ["bash", str(root / "run_autograder")], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    results: dict[str, Any] = strict_json((root / "results" / "results.json").read_text())
    jsonschema.validate(results, GRADESCOPE)
    assert not (root / "results" / "results.json.part").exists()
    return results


#: A helper module nested too deep for Python's parser (a MemoryError, not a SyntaxError).
DEEP = "x = " + "-" * 200_000 + "1\n"


@pytest.mark.parametrize("helpers", [None, DEEP], ids=["alone", "deep-helpers"])
def test_the_gradescope_autograder_writes_its_results(tmp_path: Path, helpers: str | None) -> None:
    """The guide's run_autograder, on a scratch copy of Gradescope's folders, with this
    installation's ttt: the results file follows the specification, whatever else the
    submission holds."""
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    variant(root / "submission", BUGS["player-inverted"][1])
    if helpers is not None:
        (root / "submission" / "helpers.py").write_text(helpers)
    results = run_autograder(root, str(Path(sys.executable).with_name("ttt")))
    assert [(t["name"], t["status"]) for t in results["tests"]] == [
        ("winner", "passed"),
        ("player", "failed"),
    ]
    assert results["score"] == 1


_GRADED = '{"score": 0, "output": "could not be graded", "tests": []}'


@pytest.mark.parametrize(
    ("script", "kept"),
    [
        pytest.param(
            'echo "Traceback (most recent call last):" >&2; echo "ImportError: x" >&2; exit 1',
            False,
            id="crashes",
        ),
        pytest.param("echo 'Checking…'; exit 0", False, id="not-json"),
        pytest.param("echo '[1, 2]'; exit 1", False, id="not-an-object"),
        pytest.param("echo '{\"score\": NaN}'; exit 0", False, id="nan"),
        pytest.param(f"echo '{_GRADED}'; exit 2", False, id="usage-error"),
        pytest.param(f"echo '{_GRADED}'; exit 137", False, id="killed"),
        pytest.param(f"echo '{_GRADED}'; exit 4", True, id="error-report-kept"),
    ],
)
def test_the_gradescope_autograder_always_leaves_valid_results(
    tmp_path: Path, script: str, kept: bool
) -> None:
    """Whatever ttt does (crash, print no JSON, exit with a code that is no verdict), the
    results file is valid, and says the autograder failed, not the student; a report that
    ttt check wrote with exit 4 (a file it could not grade) is kept as it is."""
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    fake = tmp_path / "bin" / "ttt"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\n{script}\n")
    fake.chmod(0o755)
    results = run_autograder(root, str(fake))
    if kept:
        assert results == json.loads(_GRADED)
        return
    assert (results["score"], results["tests"]) == (0, [])
    assert results["output"].startswith("The autograder failed, not your submission (")
    assert "\n" not in results["output"]


#: What a student's code may write, that XML 1.0 does not allow: control characters, lone
#: surrogates (a file name that is not UTF-8), U+FFFE and U+FFFF.
HOSTILE = "\x00\x01\x1b[31m\x7f \ud800 \udcff \ufffe \uffff tab\tend"


def test_junit_escapes_what_xml_does_not_allow() -> None:
    """Each character XML 1.0 does not allow, in an attribute or a text, is written as its
    escape: the document stays well formed for every parser, and still says what it was."""
    example = Example("XXX/OO./...", "utility(board)", "1", repr(HOSTILE), f"ask {HOSTILE}")
    check = FunctionCheck("utility", False, 10, 10, 3, example)
    wrong = CheckReport(
        "bob\udcff.py", "cs50", {"utility": check}, 1.0, status="fail", isolation=HOSTILE
    )
    crashed = CheckReport(
        "carol.py", "cs50", {}, 0.0, problems=(f"does not import: {HOSTILE}",), status="fail"
    )
    data = junit([wrong, crashed])
    root = assert_junit(data)
    text = data.decode()
    for escape in ("\\x00", "\\x01", "\\x1b[31m", "\\ud800", "\\udcff", "\\ufffe", "\\uffff"):
        assert escape in text
    suites = list(root)
    assert suites[0].get("name") == "bob\\udcff.py"
    failure = suites[0].find("testcase/failure")
    assert failure is not None
    assert failure.text is not None
    assert "ask \\x00\\x01\\x1b[31m\x7f" in failure.text  # DEL is allowed: kept
    assert "tab\tend" in failure.text
    properties = {p.get("name"): p.get("value") for p in suites[0].iter("property")}
    assert properties["isolation"] == (
        "\\x00\\x01\\x1b[31m\x7f \\ud800 \\udcff \\ufffe \\uffff tab\tend"
    )
    error = suites[1].find("testcase/error")
    assert error is not None
    assert "does not import: \\x00" in (error.text or "")


def test_every_format_writes_strict_json() -> None:
    """A time that is no number (nan, an infinity) is none: null in JSON, left out of the
    summary, 0 in Gradescope's execution_time; the JUnit times stay numbers."""
    check = FunctionCheck("minimax", True, 10, 10, 0, None, {"seconds": float("inf")})
    report = CheckReport(
        "nan.py",
        "cs50",
        {"minimax": check},
        1.0,
        minimax_seconds_empty_board=float("nan"),
        seconds=float("nan"),
    )
    for data in (report.as_json(), gradescope([report]), prairielearn([report])):
        strict_json(json.dumps(data))  # json.dumps writes nan as NaN, as print_json would
    assert report.as_json()["minimax_seconds_empty_board"] is None
    assert report.as_json()["checks"]["minimax"]["seconds"] is None
    results = gradescope([report])
    jsonschema.validate(results, GRADESCOPE)
    assert results["execution_time"] == 0
    assert "empty board" not in report.summary()
    assert report.row()["minimax_s"] == ""
    assert_junit(junit([report]))  # its time attributes are numbers
    with pytest.raises(ValueError, match="points for minimax must be a number from 0"):
        gradescope([report], {"minimax": float("inf")})
    with pytest.raises(ValueError, match="coverage must be a number from 0 to 1"):
        CheckReport("nan.py", "cs50", {}, float("nan"), status="fail")


def test_gradescope_says_when_a_file_was_graded_without_a_box(tmp_path: Path) -> None:
    path = variant(tmp_path, [])
    done = ttt(
        "check", str(path), "--only", "winner", "--isolation", "off", "--format", "gradescope"
    )
    assert done.returncode == 0, done.stderr
    results = strict_json(done.stdout)
    jsonschema.validate(results, GRADESCOPE)
    assert "graded without a box: off: not contained (asked)" in results["output"]
    boxed = CheckReport("alice.py", "cs50", {}, 0.0, status="fail", isolation="bubblewrap")
    assert "without a box" not in gradescope([boxed])["output"]


_IMPORT_FAILS = 'raise RuntimeError("boom")\n\n\ndef minimax(board):\n    return None\n'


@pytest.mark.parametrize(
    ("files", "points", "code", "score"),
    [
        pytest.param({"tictactoe.py": _IMPORT_FAILS}, 1, 1, 0.0, id="does-not-import"),
        pytest.param({"boom.py": 'raise RuntimeError("boom")\n'}, 1, 1, 0.0, id="no-exercise"),
        pytest.param({"notes.txt": "my answers\n"}, 1, 1, 0.0, id="no-py-file"),
        pytest.param({"tictactoe.py": None}, 0, 0, 1.0, id="worth-nothing-passes"),
        pytest.param({"tictactoe.py": _IMPORT_FAILS}, 0, 1, 0.0, id="worth-nothing-fails"),
    ],
)
def test_prairielearn_grades_the_students_failures(
    tmp_path: Path, files: dict[str, str | None], points: int, code: int, score: float
) -> None:
    """Through ``ttt check``: what the student's code does (not import, define nothing,
    hold no .py file) is gradable and scores 0; checks worth no points score 1 when they
    pass."""
    folder = tmp_path / "submission"
    folder.mkdir()
    for name, text in files.items():
        if text is None:
            variant(folder, [], name)  # the correct corpus file
        else:
            (folder / name).write_text(text)
    done = ttt(
        "check", str(folder), "--only", "winner", "--points", f"winner={points}",
        "--format", "prairielearn",
    )  # fmt: skip
    assert done.returncode == code, done.stderr
    results = strict_json(done.stdout)
    jsonschema.validate(results, PRAIRIELEARN)
    assert (results["gradable"], results["score"]) == (True, score), results["output"]
    assert "format_errors" not in results


def _graded_by(failing: str) -> Any:
    """A stand-in for check_path that fails as ttt check's own bug would on the file named
    ``failing`` (a RecursionError, its message two lines long) and passes the others."""

    def check_path(path: Path, **options: Any) -> CheckReport:
        if path.name == failing:
            raise RecursionError("maximum recursion depth exceeded\nwhile reading it")
        check = FunctionCheck("winner", True, 5478, 5478, 0, None)
        return CheckReport(str(path), "cs50", {"winner": check}, 1.0, isolation="bubblewrap")

    return check_path


_INTERNAL = (
    "could not be graded: internal error in ttt check "
    "(RecursionError: maximum recursion depth exceeded …)"
)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_file_the_grader_fails_on_is_its_row_not_the_class_report(
    fmt: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Any exception of ttt check's own on one file (not a TttlabError: a MemoryError, a
    RecursionError, a bug) is that file's ``error`` row; every format is written for the
    class, and the exit code says an error (4)."""
    monkeypatch.chdir(tmp_path)
    files = [Path("alice.py"), Path("deep.py"), Path("carol.py")]
    for file in files:
        file.write_text("def minimax(board):\n    return None\n")
    table = Path("grades.csv")
    monkeypatch.setattr(check_cmd, "check_path", _graded_by("deep.py"))
    args = ["check", *map(str, files), "--format", fmt, "--csv", str(table), "-j", "2"]
    assert main(args) == 4
    printed = capsys.readouterr().out
    rows = list(csv.DictReader(table.open()))
    assert [(Path(r["file"]).name, r["status"], r["problem"]) for r in rows] == [
        ("alice.py", "pass", ""),
        ("deep.py", "error", _INTERNAL),
        ("carol.py", "pass", ""),
    ]
    if fmt == "csv":
        assert list(csv.DictReader(printed.splitlines())) == rows
    elif fmt == "json":
        lines = [strict_json(line) for line in printed.splitlines()]
        assert [(r["status"], r["problems"]) for r in lines] == [
            ("pass", []),
            ("error", [_INTERNAL]),
            ("pass", []),
        ]
    elif fmt == "gradescope":
        results = strict_json(printed)
        jsonschema.validate(results, GRADESCOPE)
        assert _INTERNAL in results["output"]
        assert results["score"] == 2
    elif fmt == "prairielearn":
        results = strict_json(printed)
        jsonschema.validate(results, PRAIRIELEARN)
        assert results["gradable"] is False  # the grader's failure: no attempt used up
        assert results["format_errors"] == [f"{files[1]}: {_INTERNAL}"]
    elif fmt == "junit":
        root = assert_junit(printed.encode())
        assert [suite.get("errors") for suite in root] == ["0", "1", "0"]
    else:
        assert "ERROR" in printed
        assert [f.name in printed for f in files] == [True, True, True]


def test_a_file_nested_too_deep_for_the_parser_is_still_a_row(tmp_path: Path) -> None:
    """A file the parser gives up on with a MemoryError (not a SyntaxError) ended the whole
    run with "internal error: MemoryError"; the class's CSV is written, a row a file."""
    deep = tmp_path / "deep.py"
    deep.write_text("def minimax(board):\n    return None\n\n\nx = " + "-" * 200_000 + "1\n")
    good = variant(tmp_path, [], "good.py")
    done = ttt("check", str(deep), str(good), "--only", "winner", "--format", "csv")
    rows = list(csv.DictReader(done.stdout.splitlines()))
    assert [Path(r["file"]).name for r in rows] == ["deep.py", "good.py"], done.stderr
    assert rows[0]["status"] != "pass"  # the box's verdict on it (it does not import)
    assert rows[1]["status"] == "pass"
    assert "internal error" not in done.stderr
