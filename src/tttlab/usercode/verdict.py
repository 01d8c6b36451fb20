"""The verdict on what a box sent back (:func:`grade`): each check's result against the
truth and its first counterexample, the problems in one line each, and whose fault each is:
``pass``, ``fail`` (the submission's), ``incomplete`` (the time limit came first) or
``error`` (the grader's own failure, in its own words).

The time limit is the clock's (the teacher's), so what it stops depends on the machine: it
is never the student's failure. Reached before the box started, during the import or during
a check, the file is ``incomplete``, and a note says how much of the machine the box had
(its CPU time, and its waits for a CPU, against the clock). The limits that fail a file, the
import's and each call's, count its own time (the box's caller says so), never the machine's.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from tttlab.errors import TttlabError
from tttlab.game import Position
from tttlab.render import board_text
from tttlab.usercode.cases import ExerciseTruth
from tttlab.usercode.exercises import Case, Exercise, Plan
from tttlab.usercode.exercises.base import grid
from tttlab.usercode.processes import Usage
from tttlab.usercode.protocol import describe
from tttlab.usercode.report import CheckReport, Example, FunctionCheck
from tttlab.usercode.sandbox import Job, RawRun

__all__ = ["BUSY", "grade", "machine_note"]


def _example(
    exercise: Exercise,
    function: str,
    case: Case,
    outcome: list[Any],
    truth: ExerciseTruth,
    making: list[str] | None = None,
) -> Example:
    expected = exercise.expected(function, case, truth)
    got = exercise.got(function, outcome, case, truth)
    board = exercise.board_shown(function, case, outcome)
    try:  # a board named by what the student's code returned may be no position at all
        drawing = board_text(Position.from_string(board), numbers=False) if board else ""
    except (TttlabError, ValueError):
        board = drawing = ""
    return Example(
        board=grid(board) if board else "",
        call=exercise.call(function, case),
        expected=expected,
        got=got,
        repro=exercise.made(exercise.repro(function, case, expected, got), making or []),
        drawing=drawing,
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
    example = None if first is None else _example(exercise, function, *first, truth, raw.making)
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
    if raw.imported is None and not raw.timed_out and not raw.started:
        return f"the box did not start: {_last_line(raw)}"
    return None


#: The share of the clock a box spent waiting for a CPU past which the machine was busy.
BUSY = 0.1

_COST = {
    "t": "{function} did not return within {limit:g} s on {board}",
    "k": "the process ended in {function} on {board} ({how})",
    "b": "{function} gave no answer the grader can read on {board} ({how})",
}


def _problems(raw: RawRun, job: Job, calls: Plan, spec: Exercise) -> list[str]:
    problems: list[str] = []
    if raw.imported is None and raw.timed_out:  # the import's own limit had not come
        where = "while the module was imported" if raw.started else "before the box was ready"
        return [f"stopped at the time limit ({job.time_limit:g} s) {where}"]
    if raw.imported is None:  # the worker was ready, and the box ended during the import
        return [
            "the box ended while the module was imported, before its caller finished "
            f"(something in the box ended it: {_last_line(raw)})"
        ]
    trouble = _import_problem(raw, job.import_seconds)
    if trouble:
        return [trouble]
    # the names the checks to run need (``--only`` and an optional name left out narrow it)
    needed = {n for f in calls.cases for n in spec.needs.get(f, ())}
    required = [n for n in raw.missing if n in needed]
    if required:
        problems.append(f"does not define: {', '.join(n.replace('|', ' or ') for n in required)}")
    if raw.constants:
        problems.append(f"X, O and EMPTY cannot be compared: {raw.constants}")
        return problems
    if raw.problem:  # the exercise's side cannot take the code: one problem, not a check's
        problems.append(raw.problem)
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
            problems.append(f"{text}; its later boards were skipped")
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


_NOT_INSTALLED = "not installed, stood in by stubs: "


def _stubs_note(modules: list[str]) -> str:
    return (
        f"{_NOT_INSTALLED}{', '.join(modules)} (a call that uses one fails with that call's error)"
    )


def machine_note(usage: Usage, clock: float) -> str:
    """What the box had of the machine when the time limit came, and whether it was busy."""
    had = f"the box got {usage.cpu:.1f} s of CPU time in its {clock:g} s on the clock"
    if usage.waited is not None and usage.waited >= BUSY * clock:
        return f"the machine was busy: {had}, and waited {usage.waited:.1f} s for a CPU"
    return f"at the time limit: {had}"


def grade(
    path: Path,
    raw: RawRun,
    job: Job,
    calls: Plan,
    truth: ExerciseTruth,
    spec: Exercise,
    original: Path | None = None,
) -> CheckReport:
    """The report for what the box sent back: ``pass``, ``fail`` (a wrong answer, or the
    module failed), ``incomplete`` (the time limit came first, and every answer given was
    right) or ``error`` (the grader failed: the box did not start, or what came back cannot
    be believed; never the student's doing). ``original``: the student's own file or folder
    (``path`` may be a staged copy), where a module stood in for by a stub is looked for."""
    graded = job.files if job.load != "import" else (job.module,)
    failure = _failure(raw)
    if failure is None:
        report = _believed(spec, calls, truth, raw, job, path, graded)
        return _own_stubs(report, raw.stubbed, original or path)
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
    spec: Exercise,
    calls: Plan,
    truth: ExerciseTruth,
    raw: RawRun,
    job: Job,
    path: Path,
    graded: tuple[str, ...],
) -> CheckReport:
    skipped = [f for f in spec.skipped(raw.missing) if f in calls.cases]
    if skipped and set(skipped) < set(calls.cases):  # an optional name left out
        calls = Plan({f: c for f, c in calls.cases.items() if f not in skipped}, calls.only)
    else:  # nothing else was asked for: it is required after all
        skipped = []
    problems = _problems(raw, job, calls, spec)
    checks = {f: _grade(spec, f, c, raw, truth) for f, c in calls.cases.items()}
    planned = sum(len(c) for c in calls.cases.values())
    done = sum(min(len(raw.results.get(f, [])), len(c)) for f, c in calls.cases.items())
    timed = raw.results.get("minimax", [])
    empty_seconds = None
    if timed and len(timed) == len(calls.cases.get("minimax", ())) and timed[-1][0] == "v":
        empty_seconds = timed[-1][-1]
    notes = list(dict.fromkeys(raw.notes))
    skipped_code = list(dict.fromkeys(raw.skipped))  # two statements of one line: one place
    if skipped_code:
        notes.append(
            "loaded definitions only; top-level code not run: "
            + ", ".join(skipped_code[:6])
            + (f" and {len(skipped_code) - 6} more" if len(skipped_code) > 6 else "")
        )
    if raw.stubbed:
        notes.append(_stubs_note(raw.stubbed))
    absent = sorted({n.replace("|", " or ") for n in raw.missing if n in spec.optional})
    if skipped:
        notes.append(f"{', '.join(absent)} not defined: {', '.join(skipped)} not checked")
    notes += [n for n in spec.notes(calls.cases, raw.results) if n not in notes]
    if raw.printed:
        first = f"; the first: {raw.first_print!r}" if raw.first_print else ""
        notes.append(f"prints while being graded ({raw.printed:,} times{first})")
    if raw.timed_out and raw.usage is not None:
        notes.append(machine_note(raw.usage, job.time_limit))
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


def own_modules(names: list[str], submission: Path) -> dict[str, str]:
    """Of the modules stood in for by stubs (``names``), those that are the submission's own,
    each with where it is: the folder that holds the file graded (or one above it), or a
    file or folder inside the folder graded that Python did not find where it was imported.
    A module beside a file graded alone is not counted: it may be a classmate's."""
    folder = submission if submission.is_dir() else submission.parent
    found: dict[str, str] = {}
    for name in names:
        above = [f for f in (folder, *folder.parents[:2]) if f.name == name]
        if above:
            held = submission.name if above[0] == folder else folder.relative_to(above[0])
            found[name] = (
                f"the folder that holds {held}, which Python does not find from inside it "
                "(ttt check on the folder above it imports it)"
            )
        elif submission.is_dir():
            inside = _inside(folder, name)
            if inside is not None:
                found[name] = f"the submission's {inside}, not found where it was imported"
    return found


def _inside(folder: Path, name: str, most: int = 5_000) -> str | None:
    """``name``'s file (``name.py``) or folder inside ``folder``, as a relative path; None
    where there is none (among the first ``most`` entries)."""
    seen = 0
    try:
        for top, folders, files in os.walk(folder):
            folders[:] = sorted(f for f in folders if not f.startswith(".") and f != "__pycache__")
            seen += len(folders) + len(files)
            for entry in (f"{name}.py", name):
                if entry in files or entry in folders:
                    return str((Path(top) / entry).relative_to(folder))
            if seen > most:
                break
    except OSError:
        pass
    return None


def _own_stubs(report: CheckReport, stubbed: list[str], submission: Path) -> CheckReport:
    """``report`` with a module of the submission's own that a stub stood in for said so,
    never "not installed"."""
    own = own_modules(stubbed, submission) if stubbed else {}
    if not own:
        return report
    notes = [n for n in report.notes if not n.startswith(_NOT_INSTALLED)]
    rest = [m for m in stubbed if m not in own]
    if rest:
        notes.append(_stubs_note(rest))
    for name, where in own.items():
        notes.append(
            f"{name} is {where}: a stub stood in for it (a call that uses it fails with that "
            "call's error)"
        )

    def said(text: str) -> str:
        for name in own:
            text = text.replace(
                f"{name} is not installed (a stub stood in)",
                f"{name}, the submission's own, was not found where it was imported (a stub "
                "stood in)",
            )
        return text

    checks = {
        name: replace(
            check,
            example=replace(
                check.example, got=said(check.example.got), repro=said(check.example.repro)
            ),
        )
        if check.example is not None
        else check
        for name, check in report.checks.items()
    }
    return replace(report, notes=tuple(notes), checks=checks)
