"""Grade the exercise's functions on every reachable board: ``ttt check`` for CS50's
tic-tac-toe (``X``, ``O``, ``EMPTY``, ``initial_state``, ``player``, ``actions``,
``result``, ``winner``, ``terminal``, ``utility``, ``minimax``).

The student's module runs in a box (:mod:`tttlab.usercode.sandbox`, and
:mod:`tttlab.usercode.boxside` in it); this side plans the calls, in the order cheap first
(minimax on the empty board last), and compares what came back with tttlab's rules and
solver (:mod:`tttlab.usercode.cases`).

As the exercise allows, ``player`` and ``actions`` are checked on boards where the game
goes on only, ``utility`` on finished boards only.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from tttlab.errors import TttlabError
from tttlab.game import Position
from tttlab.render import board_text
from tttlab.usercode import box
from tttlab.usercode.cases import ExerciseTruth, exercise_truth
from tttlab.usercode.exercises import EXERCISES, Case, Exercise, Plan
from tttlab.usercode.exercises.base import grid
from tttlab.usercode.names import (
    detect,
    minimax_files,
    module_of,
    name_pairs,
    python_files,
    renames_of,
    scan,
    suggestions,
    where,
)
from tttlab.usercode.protocol import describe
from tttlab.usercode.report import CheckReport, Example, FunctionCheck
from tttlab.usercode.sandbox import Job, RawRun, run_job

__all__ = ["EXERCISES", "ISOLATION", "check_cs50", "check_path"]


def _example(
    exercise: Exercise, function: str, case: Case, outcome: list[Any], truth: ExerciseTruth
) -> Example:
    expected = exercise.expected(function, case, truth)
    got = exercise.got(function, outcome, case, truth)
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
        if outcome[0] == "v" and not exercise.well_formed(function, outcome[1]):
            # no value the box's worker writes: something in the submission wrote on its pipe
            outcome = ["b", "a value in no form the grader's worker writes"]
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
    return describe(raw.imported, import_seconds=limit)


def _last_line(raw: RawRun) -> str:
    return raw.stderr.splitlines()[-1] if raw.stderr else f"exit code {raw.returncode}"


def _failure(raw: RawRun) -> str | None:
    """The grader's own failure, in its own words (never the student's), or None."""
    if raw.channel is not None:
        return f"internal error in ttt check: the box's channel could not be read ({raw.channel})"
    if raw.broken is not None:
        return f"{raw.broken} ({_last_line(raw)})" if raw.stderr else raw.broken
    if raw.imported is None and not raw.timed_out:
        return f"the box did not start: {_last_line(raw)}"
    return None


_COST = {
    "t": "did not return within {limit:g} s on {board}",
    "k": "the process ended in {function} on {board} ({how})",
    "b": "{function} gave no answer the grader can read on {board} ({how})",
}


def _problems(raw: RawRun, job: Job, calls: Plan) -> list[str]:
    problems: list[str] = []
    if raw.imported is None:  # only the time limit stops the box before the import's mark
        return [
            f"could not be run: it did not finish importing within {job.time_limit:g} s "
            "(a loop, or a game started, at import?)"
        ]
    trouble = _import_problem(raw, job.import_seconds)
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
        last = outcomes[-1] if outcomes else ["v"]
        if last[0] in _COST:
            board = grid(calls.cases[function][len(outcomes) - 1].board)
            how = str(last[1]) if last[0] != "t" else ""
            if last[:2] == ["k", "killed by SIGKILL"]:
                how = f"killed; over the memory limit of {job.memory_mb} MB?"
            text = _COST[last[0]].format(
                limit=job.call_seconds, board=board, function=function, how=how
            )
            problems.append(
                f"{function} {text}; its later boards were skipped"
                if last[0] == "t"
                else f"{text}; its later boards were skipped"
            )
    if raw.stopped:
        problems.append(f"the later checks were not run: {raw.stopped}")
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
            problems.append(
                f"the box ended in {running}{where} before its caller finished "
                f"(something in the box ended it: {_last_line(raw)})"
            )
    elif raw.timed_out:
        problems.append(f"stopped at the time limit ({job.time_limit:g} s)")
    elif not raw.done:
        problems.append(
            f"the box ended before its caller finished (something in the box ended it: "
            f"{_last_line(raw)})"
        )
    return problems


#: What ``isolation`` may ask: a box where one can be made, a box or nothing, no box.
ISOLATION = ("auto", "required", "off")


#: Held while a submission's grading runs in this process, released while it waits for its
#: box: ``ttt check`` grades a class several submissions at a time, in threads, and their
#: Python sides take turns. CPython 3.11 keeps the syntax-tree builder's depth for the whole
#: interpreter, so two threads building trees at once (reading a submission's definitions
#: with ``ast.parse``, loading a table, whose ``.npy`` headers numpy reads with
#: ``ast.literal_eval``) fail with "SystemError: AST constructor recursion depth mismatch"
#: (python/cpython#106905): 5 of 32 runs of ``ttt check`` on two files, two at a time, on
#: this 2-core machine with four such runs side by side.
_TURN = threading.Lock()


@contextlib.contextmanager
def _waiting() -> Iterator[None]:
    """Give the turn to another submission's grading while this one waits for its box."""
    _TURN.release()
    try:
        yield
    finally:
        _TURN.acquire()


def check_path(
    path: Path,
    *,
    exercise: str | None = None,
    time_limit: float = 120.0,
    memory_mb: int = 1024,
    call_seconds: float = 5.0,
    only: tuple[str, ...] = (),
    isolation: str = "auto",
    names: Mapping[str, str] | Iterable[str] = (),
) -> CheckReport:
    """Grade the exercise at ``path`` (a file, or a folder of the student's files, its
    sub-folders and packages too) on every reachable board, as ``ttt check`` does;
    ``exercise`` forces the shape, and ``names`` maps the exercise's names to the student's
    (``{"initialV_x": "init_x_vals", "board": "tiles"}``, or ``--name`` pairs).

    The code runs in a box of its own (:mod:`tttlab.usercode.box`); ``isolation``
    "required" refuses (:class:`TttlabError`) where no box can be made, "off" grades
    without one. Safe to call from several threads: the boxes run side by side."""
    with _TURN:  # a turn of its own, given up while its box runs
        if isolation not in ISOLATION:
            raise TttlabError(f"isolation must be one of {', '.join(ISOLATION)}, got {isolation!r}")
        contained = box.isolation() if isolation != "off" else None
        if isolation == "required" and (contained is None or not contained.boxed):
            assert contained is not None
            raise TttlabError(f"{contained.describe}; --isolation required refuses to grade")
        boxed = contained is not None and contained.boxed
        described = "off: not contained (asked)" if contained is None else contained.describe
        files = python_files(path)
        if not files:
            raise TttlabError(f"no .py file in {path}")
        folder = path if path.is_dir() else path.parent
        modules = scan(folder, files)
        given = names if isinstance(names, Mapping) else tuple(names)
        shape = exercise or detect(modules, _loose(given))
        if shape is None:
            return _nothing(
                path,
                "defines none of the exercises (cs50, course, board); --exercise forces one",
                described,
                status="fail",
            )
        if shape not in EXERCISES:
            raise TttlabError(f"unknown exercise {shape!r}; choose one of {', '.join(EXERCISES)}")
        spec = EXERCISES[shape]
        renames = renames_of(given, spec)
        unknown = [f for f in only if f not in spec.functions]
        if unknown:
            raise TttlabError(
                f"{shape} has no check {unknown[0]!r}; its checks: {', '.join(spec.functions)}"
            )
        module = ""
        if spec.load == "import" and path.is_dir():
            found = minimax_files(path)
            if len(found) != 1:
                listed = ", ".join(f.name for f in found)
                problem = (
                    "no .py file in it defines minimax()"
                    if not found
                    else f"{len(found)} files define minimax() ({listed}) "
                    f"and none is tictactoe.py: name the one to grade (ttt check {found[0]})"
                )
                return _nothing(path, problem, described, status="fail")  # the folder's own
            files = found
            module = found[0].name
        elif spec.load == "import":
            module = path.name
        truth = exercise_truth()
        calls, phases = _planned(spec.key, only)
        graded = [module_of(f.relative_to(folder)) for f in files]
        modules = [m for m in modules if m.name in graded]
        located = where(spec, modules, renames)
        job = Job(
            path,
            spec.key,
            spec.load,
            tuple(str(f.relative_to(folder)) for f in files),
            spec.names,
            phases,
            spec.unlimited,
            spec.timed,
            time_limit,
            memory_mb,
            call_seconds,
            module,
            tuple(graded),
            renames,
            {ours: at.rsplit(".", 1)[0] for ours, at in located.items()},
        )
        try:
            with _waiting():
                raw = run_job(job, boxed)
        except box.TooLarge as error:  # the submission's own size
            return _nothing(path, f"could not be graded: {error}", described, status="fail")
        except OSError as error:  # the copy or the box could not be made: the machine's
            problem = f"could not be graded: the box could not be made: {error}"
            return _nothing(path, problem, described, status="error")
        raw.isolation = described
        try:
            report = grade(path, raw, job, calls, truth, spec)
        except Exception as error:  # tttlab's own fault: this file's verdict, not the class's
            problem = f"could not be graded: internal error in ttt check ({error!r})"
            return _nothing(path, problem, described, status="error")
        sources = {str(f.relative_to(folder)): f.read_text(errors="replace") for f in files}
        hints, could_be = spec.hints(sources, report), suggestions(spec, raw.missing, modules)
        problems = (*hints, *report.problems, *could_be)
        shown = located if len(files) > 1 or renames else {}
        return replace(report, problems=problems, found=shown, renamed=renames)


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


def _nothing(path: Path, problem: str, isolation: str, status: str) -> CheckReport:
    return CheckReport(
        file=str(path),
        exercise="",
        checks={},
        coverage=0.0,
        problems=(problem,),
        status=status,
        isolation=isolation,
    )


def grade(
    path: Path, raw: RawRun, job: Job, calls: Plan, truth: ExerciseTruth, spec: Exercise
) -> CheckReport:
    """The report for what the box sent back: ``pass``, ``fail`` (a wrong answer, or the
    module failed), ``incomplete`` (the time limit came first, and every answer given was
    right) or ``error`` (the grader failed: the box did not start, or what came back cannot
    be believed; never the student's doing)."""
    graded = job.files if job.load != "import" else (job.module,)
    failure = _failure(raw)
    if failure is None:
        return _believed(path, raw, job, calls, truth, spec, graded)
    return CheckReport(
        file=str(path),
        exercise=spec.key,
        isolation=raw.isolation,
        checks={},
        coverage=0.0,
        problems=(f"could not be graded: {failure}",),
        seconds=raw.seconds,
        status="error",
        graded=graded,
    )


def _believed(
    path: Path,
    raw: RawRun,
    job: Job,
    calls: Plan,
    truth: ExerciseTruth,
    spec: Exercise,
    graded: tuple[str, ...],
) -> CheckReport:
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
    if raw.stubbed:
        notes.append(
            f"not installed, stood in by stubs: {', '.join(raw.stubbed)} "
            "(a call that uses one fails with that call's error)"
        )
    if raw.printed:
        first = f"; the first: {raw.first_print!r}" if raw.first_print else ""
        notes.append(f"prints while being graded ({raw.printed:,} times{first})")
    coverage = done / max(planned, 1)
    wrong = any(c.wrong for c in checks.values())
    out_of_time = [p for p in problems if p.startswith("stopped at the time limit")]
    if not problems and not wrong and coverage == 1.0 and all(c.ok for c in checks.values()):
        status = "pass"
    elif raw.timed_out and not wrong and problems == out_of_time:
        status = "incomplete"
    else:
        status = "fail"
    return CheckReport(
        file=str(path),
        exercise=spec.key,
        isolation=raw.isolation,
        checks=checks,
        coverage=coverage,
        minimax_seconds_empty_board=empty_seconds,
        problems=tuple(problems),
        notes=tuple(notes),
        seconds=raw.seconds,
        status=status,
        graded=graded,
    )


def _loose(given: Mapping[str, str] | tuple[str, ...]) -> dict[str, str]:
    """``--name`` pairs as a mapping before the exercise is known (for detecting it)."""
    return {ours: theirs for ours, theirs in name_pairs(given) if theirs}
