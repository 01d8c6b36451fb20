"""What the usercode tests share: a corpus file with a student's change made to it (each
change must apply, so a corpus edit cannot silently turn a variant into the faithful file),
a module loaded from a path, and the counterexample a check must fail with."""

from __future__ import annotations

import importlib.util
import itertools
import json
from pathlib import Path
from types import ModuleType

from tttlab.usercode.boxside.loading import guarded
from tttlab.usercode.boxside.shapes import CHILDREN
from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises import EXERCISES
from tttlab.usercode.grading import check_path
from tttlab.usercode.report import CheckReport, Example, FunctionCheck
from tttlab.usercode.sandbox import RawRun
from tttlab.usercode.verdict import _grade

_LOADED = itertools.count()


def edited(source: str, changes: list[tuple[str, str]], once: bool = False) -> str:
    """``source`` with each ``old`` replaced by its ``new`` (``old`` found, once if asked)."""
    for old, new in changes:
        assert old in source, old
        assert not once or source.count(old) == 1, old
        source = source.replace(old, new)
    return source


def write_edited(
    source: str, changes: list[tuple[str, str]], path: Path, once: bool = False
) -> Path:
    """``path``, holding ``source`` with the changes made (:func:`edited`)."""
    path.write_text(edited(source, changes, once))
    return path


def load_module(path: Path, name: str) -> ModuleType:
    """The module at ``path``, imported as ``name`` in this process."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def failing(path: Path, check: str, words: str, where: str = "got") -> tuple[CheckReport, Example]:
    """``path`` checked on ``check`` alone: the check fails on a wrong answer, with a
    counterexample whose ``where`` (``got``, ``repro``...) holds ``words``."""
    report = check_path(path, only=(check,))
    result = report.checks[check]
    assert result.status == "fail", report.as_json()
    assert result.example is not None
    shown = getattr(result.example, where)
    assert words in shown, shown
    return report, result.example


def passing(path: Path, exercise: str) -> dict[str, int]:
    """``path`` checked whole, found to be ``exercise`` and passing: the calls each check made."""
    report = check_path(path)
    assert report.exercise == exercise
    assert report.ok, report.as_json()
    return {n: c.checked for n, c in report.checks.items()}


def judged_here(path: Path, exercise: str, check: str, seconds: float = 5.0) -> FunctionCheck:
    """``check`` of ``exercise`` on the module at ``path``, loaded in this process and called
    through the exercise's own side of the box (its calls, seeds and encodings), each answer
    carried through JSON as the channel carries it and judged by the verdict's own
    ``_grade``: the box's process, pipes and limits left out (each call still stops after
    ``seconds``). For the many buggy copies of a shape; the box itself is tested apart."""
    spec = EXERCISES[exercise]
    truth = exercise_truth()
    cases = spec.cases(truth)[check]
    child = CHILDREN[exercise](load_module(path, f"judged_here_{next(_LOADED)}"), {})
    prepared = child.prepare()  # the exercise's constants compare, the agent can be built
    assert prepared is None or "problem" not in prepared, prepared

    def run(target: object, *args: object) -> list[object]:
        found: list[object] = guarded(target, args, seconds)
        return found

    outcomes = []
    for case in cases:
        outcome = child.call(check, spec.payload(check, case), run)
        outcomes.append(json.loads(json.dumps(outcome)))
        if outcome[0] not in ("v", "e", "x", "i"):  # the call cost the box its worker
            break
    return _grade(spec, check, cases, RawRun(results={check: outcomes}), truth)


def failing_here(
    path: Path, exercise: str, check: str, words: str
) -> tuple[FunctionCheck, Example]:
    """:func:`failing`, judged in this process (:func:`judged_here`)."""
    result = judged_here(path, exercise, check)
    assert result.status == "fail", result
    assert result.example is not None
    assert words in result.example.got, result.example.got
    return result, result.example
