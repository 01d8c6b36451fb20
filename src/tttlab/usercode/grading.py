"""Grade the exercise's functions on every reachable board: ``ttt check`` for CS50's
tic-tac-toe (``X``, ``O``, ``EMPTY``, ``initial_state``, ``player``, ``actions``,
``result``, ``winner``, ``terminal``, ``utility``, ``minimax``).

The student's module runs in a child process (:mod:`tttlab.usercode.sandbox`); this side
plans the calls, in the order cheap first (minimax on the empty board last), and compares
what came back with tttlab's rules and solver (:mod:`tttlab.usercode.cases`).

As the exercise allows, ``player`` and ``actions`` are checked on boards where the game
goes on only, ``utility`` on finished boards only.
"""

from __future__ import annotations

import ast
import re
import signal
from functools import lru_cache
from pathlib import Path
from typing import Any

from tttlab.errors import TttlabError
from tttlab.game import Position
from tttlab.render import board_text
from tttlab.usercode.cases import ExerciseTruth, exercise_truth
from tttlab.usercode.course import BoardExercise, CourseExercise
from tttlab.usercode.exercises import CS50, Case, Exercise, Plan, grid
from tttlab.usercode.report import CheckReport, Example, FunctionCheck
from tttlab.usercode.sandbox import Job, RawRun, run_job

__all__ = ["EXERCISES", "check_cs50", "check_path", "detect", "find_module"]

#: Every shape ``ttt check`` knows, by its ``--exercise`` name.
EXERCISES: dict[str, Exercise] = {e.key: e for e in (CS50(), CourseExercise(), BoardExercise())}


def _example(
    exercise: Exercise, function: str, case: Case, outcome: list[Any], truth: ExerciseTruth
) -> Example:
    expected = exercise.expected(function, case, truth)
    got = exercise.got(function, outcome, case)
    whole = function in ("initial_state", "get_state_hash_and_winner") or function.startswith(
        "initialV"
    )
    return Example(
        board="" if whole else grid(case.board),
        call=exercise.call(function, case),
        expected=expected,
        got=got,
        repro=exercise.repro(function, case, expected, got),
        drawing="" if whole else board_text(Position.from_string(case.board), numbers=False),
    )


def _grade(
    exercise: Exercise, function: str, cases: list[Case], raw: RawRun, truth: ExerciseTruth
) -> FunctionCheck:
    outcomes = raw.results.get(function, [])
    checked = min(len(outcomes), len(cases))
    wrong = 0
    first: tuple[Case, list[Any]] | None = None
    for case, outcome in zip(cases, outcomes, strict=False):
        if not exercise.right(function, case, outcome, truth):
            wrong += 1
            if first is None or case.rank < first[0].rank:
                first = (case, outcome)
    done = cases[:checked]
    extra: dict[str, Any] = {}
    if any(c.invalid for c in cases):
        extra = {"invalid_checked": sum(c.invalid for c in done)}
    example = None if first is None else _example(exercise, function, *first, truth)
    return FunctionCheck(
        name=function,
        ok=wrong == 0 and checked == len(cases),
        checked=sum(exercise.counted(function, c) for c in done),
        planned=sum(exercise.counted(function, c) for c in cases),
        wrong=wrong,
        example=example,
        extra=extra,
    )


def _import_problem(raw: RawRun, limit: float) -> str | None:
    if raw.imported is None:
        return None
    kind = raw.imported[0]
    if kind == "v":
        return None
    if kind == "e":
        return f"does not import: {raw.imported[1]}"
    if kind == "x":
        return "calls sys.exit() when imported"
    if kind == "i":
        return 'calls input() when imported (keep the game under `if __name__ == "__main__":`)'
    return f"takes more than {limit:g} s to import"


def _problems(raw: RawRun, job: Job, calls: Plan) -> list[str]:
    problems: list[str] = []
    if raw.imported is None:
        detail = raw.stderr.splitlines()[-1] if raw.stderr else f"exit code {raw.returncode}"
        if raw.timed_out:
            detail = (
                f"it did not finish importing within {job.time_limit:g} s "
                "(a loop, or a game started, at import?)"
            )
        return [f"could not be run: {detail}"]
    trouble = _import_problem(raw, job.as_json()["import_seconds"])
    if trouble:
        return [trouble]
    if raw.missing:
        problems.append(
            f"does not define: {', '.join(n.replace('|', ' or ') for n in raw.missing)}"
        )
    if raw.constants:
        problems.append(f"X, O and EMPTY cannot be compared: {raw.constants}")
        return problems
    for function, outcomes in raw.results.items():
        if outcomes and outcomes[-1][0] == "t":
            case = calls.cases[function][len(outcomes) - 1]
            problems.append(
                f"{function} did not return within {job.call_seconds:g} s on "
                f"{grid(case.board)}; its later boards were skipped"
            )
    running = next((f for f in calls.cases if f in raw.results and f not in raw.finished), None)
    if running is not None:
        done = len(raw.results[running])
        cases = calls.cases[running]
        where = f" on {grid(cases[done].board)}" if done < len(cases) else ""
        if running not in job.unlimited:
            # answers to quick calls reach us up to 20 ms late: it stopped there or later
            where = where.replace(" on ", " at or after ")
        if raw.timed_out:
            problems.append(f"stopped at the time limit ({job.time_limit:g} s) in {running}{where}")
        else:
            how = raw.stderr.splitlines()[-1] if raw.stderr else f"exit code {raw.returncode}"
            if raw.returncode == -signal.SIGKILL:
                how = f"killed (exit code -9; over the memory limit of {job.memory_mb} MB?)"
            problems.append(f"the process died in {running}{where}: {how}")
    elif raw.timed_out:
        problems.append(f"stopped at the time limit ({job.time_limit:g} s)")
    return problems


def _python_files(path: Path) -> list[Path]:
    return sorted(path.glob("*.py")) if path.is_dir() else [path]


def _sources(files: list[Path]) -> dict[str, str]:
    out = {}
    for f in files:
        try:
            out[f.name] = f.read_text(errors="replace")
        except OSError:
            continue
    return out


def detect(sources: dict[str, str]) -> str | None:
    """The exercise shape the files define: ``course`` (an ``Environment`` class with
    ``get_state``), ``board`` (a ``Board`` class with ``play``) or ``cs50`` (``minimax``
    or ``initial_state``); None when none is there."""
    classes: dict[str, set[str]] = {}
    functions: set[str] = set()
    for text in sources.values():
        try:
            tree = ast.parse(text)
        except SyntaxError:  # still recognisable from its definitions
            functions |= set(re.findall(r"^def (\w+)", text, flags=re.M))
            for name in re.findall(r"^class (\w+)", text, flags=re.M):
                classes.setdefault(name, set()).update(re.findall(r"^\s+def (\w+)", text, re.M))
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
                classes.setdefault(node.name, set()).update(methods)
            elif isinstance(node, ast.FunctionDef):
                functions.add(node.name)
    if "get_state" in classes.get("Environment", set()):
        return "course"
    if "play" in classes.get("Board", set()):
        return "board"
    if functions & {"minimax", "initial_state"}:
        return "cs50"
    return None


def check_path(
    path: Path,
    *,
    exercise: str | None = None,
    time_limit: float = 120.0,
    memory_mb: int = 1024,
    call_seconds: float = 5.0,
    only: tuple[str, ...] = (),
) -> CheckReport:
    """Grade the exercise at ``path`` (a file, or a folder of the student's files) on
    every reachable board, as ``ttt check`` does; ``exercise`` forces the shape."""
    files = _python_files(path)
    if not files:
        raise TttlabError(f"no .py file in {path}")
    sources = _sources(files)
    shape = exercise or detect(sources)
    if shape is None:
        return _nothing(
            path, "defines none of the exercises (cs50, course, board); --exercise forces one"
        )
    if shape not in EXERCISES:
        raise TttlabError(f"unknown exercise {shape!r}; choose one of {', '.join(EXERCISES)}")
    spec = EXERCISES[shape]
    unknown = [f for f in only if f not in spec.functions]
    if unknown:
        raise TttlabError(
            f"{shape} has no check {unknown[0]!r}; its checks: {', '.join(spec.functions)}"
        )
    target = path
    if spec.load == "import" and path.is_dir():
        found = find_module(path)
        if found is None:
            return _nothing(path, "no .py file in it defines minimax()")
        target, files = found, [found]
    truth = exercise_truth()
    calls, phases = _planned(spec.key, only)
    job = Job(
        target,
        spec.key,
        spec.load,
        tuple(str(f.resolve()) for f in files),
        spec.names,
        phases,
        spec.unlimited,
        spec.timed,
        time_limit,
        memory_mb,
        call_seconds,
    )
    raw = run_job(job)
    report = grade(path, raw, job, calls, truth, spec)
    hints = tuple(spec.hints(sources))
    if hints:
        report = CheckReport(**{**vars(report), "problems": hints + report.problems})
    return report


@lru_cache(maxsize=16)
def _planned(
    shape: str, only: tuple[str, ...]
) -> tuple[Plan, list[tuple[str, list[Any], list[str]]]]:
    """The calls for a shape and its child's phases (the same for every file: a class of
    submissions plans once)."""
    spec = EXERCISES[shape]
    calls = spec.plan(exercise_truth(), only)
    phases = [
        (f, [spec.payload(f, c) for c in cases], list(spec.needs[f]))
        for f, cases in calls.cases.items()
    ]
    return calls, phases


def check_cs50(path: Path, **options: Any) -> CheckReport:
    """Grade a CS50 tic-tac-toe module (``check_path`` with ``exercise="cs50"``)."""
    return check_path(path, exercise="cs50", **options)


def _nothing(path: Path, problem: str) -> CheckReport:
    return CheckReport(file=str(path), exercise="", checks={}, coverage=0.0, problems=(problem,))


def grade(
    path: Path, raw: RawRun, job: Job, calls: Plan, truth: ExerciseTruth, spec: Exercise
) -> CheckReport:
    """The report for what the child sent back."""
    problems = _problems(raw, job, calls)
    checks = {f: _grade(spec, f, c, raw, truth) for f, c in calls.cases.items()}
    planned = sum(len(c) for c in calls.cases.values())
    done = sum(min(len(raw.results.get(f, [])), len(c)) for f, c in calls.cases.items())
    timed = raw.results.get("minimax", [])
    empty_seconds = None
    if timed and len(timed) == len(calls.cases.get("minimax", ())) and timed[-1][0] == "v":
        empty_seconds = timed[-1][-1]
    notes = []
    if raw.skipped:
        notes.append(
            "loaded definitions only; top-level code not run: "
            + ", ".join(raw.skipped[:6])
            + (f" and {len(raw.skipped) - 6} more" if len(raw.skipped) > 6 else "")
        )
    if raw.printed:
        first = f"; the first: {raw.first_print!r}" if raw.first_print else ""
        notes.append(f"prints while being graded ({raw.printed:,} times{first})")
    return CheckReport(
        file=str(path),
        exercise=spec.key,
        checks=checks,
        coverage=done / max(planned, 1),
        minimax_seconds_empty_board=empty_seconds,
        problems=tuple(problems),
        notes=tuple(notes),
        seconds=raw.seconds,
    )


def find_module(folder: Path) -> Path | None:
    """The CS50 exercise's file in a folder: ``tictactoe.py`` when it is there, else the
    first .py file (by name) that defines ``minimax``."""
    preferred = folder / "tictactoe.py"
    if preferred.is_file():
        return preferred
    for path in sorted(folder.glob("*.py")):
        try:
            if "def minimax(" in path.read_text(errors="replace"):
                return path
        except OSError:
            continue
    return None
