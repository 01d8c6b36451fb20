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
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from tttlab.errors import TttlabError
from tttlab.usercode import box
from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises import EXERCISES, Exercise, Plan
from tttlab.usercode.merging import merged
from tttlab.usercode.names import (
    Module,
    detect_all,
    module_of,
    name_pairs,
    python_files,
    renames_of,
    scan,
    suggestions,
    where,
)
from tttlab.usercode.none_found import none_found
from tttlab.usercode.report import CheckReport
from tttlab.usercode.sandbox import Job, run_job
from tttlab.usercode.speed import Limits, limits
from tttlab.usercode.spelling import Spelled, inherited, read_sources, spelled
from tttlab.usercode.submission import (
    HISTORY,
    NotebookError,
    Staged,
    code_files,
    staged,
    staged_history,
)
from tttlab.usercode.verdict import grade

__all__ = ["EXERCISES", "ISOLATION", "check_cs50", "check_history", "check_path"]


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
    others: Collection[Path] = (),
) -> CheckReport:
    """Grade the exercise at ``path`` (a file or a notebook, or a folder of the student's
    files, its sub-folders, packages and notebooks too) on every reachable board, as ``ttt
    check`` does; a file is graded with the modules beside it that it imports, never one of
    ``others`` (the other submissions of a class graded together);
    ``exercise`` forces the shape, and ``names`` maps the exercise's names to the student's
    (``{"initialV_x": "init_x_vals", "board": "tiles"}``, or ``--name`` pairs). A folder
    that holds several shapes (the course's ``Environment`` and its ``Agent``) has each
    graded, in one report.

    The code runs in a box of its own (:mod:`tttlab.usercode.box`); ``isolation``
    "required" refuses (:class:`TttlabError`) where no box can be made, "off" grades
    without one. Safe to call from several threads: the boxes run side by side."""

    def stage() -> contextlib.AbstractContextManager[Staged]:
        if not path.is_dir() and not path.is_file():  # a pipe would never end its reading
            raise TttlabError(f"{path} is not a file or a folder")
        if not code_files(path):
            raise TttlabError(f"no .py file or notebook in {path}")
        return staged(path, others)

    options = _Options(exercise, time_limit, memory_mb, call_seconds, only, isolation, names)
    return _check(str(path), stage, options)


def check_history(cells: list[tuple[int, str]], folder: Path, **options: Any) -> CheckReport:
    """Grade the cells a kernel ran (each its input number and its source, in the order
    they ran) as one notebook of ``folder``, with the modules of ``folder`` they import or
    ``%run``, as :func:`check_path` grades a notebook (``options``: its own, but
    ``others``): ``%ttt_check``."""

    def stage() -> contextlib.AbstractContextManager[Staged]:
        return staged_history(cells, folder)

    return _check(HISTORY, stage, _Options(**options))


@dataclass(frozen=True)
class _Options:
    """What a grading is asked (:func:`check_path`'s options)."""

    exercise: str | None = None
    time_limit: float = 120.0
    memory_mb: int = 1024
    call_seconds: float = 5.0
    only: tuple[str, ...] = ()
    isolation: str = "auto"
    names: Mapping[str, str] | Iterable[str] = ()


def _check(
    shown: str, stage: Callable[[], contextlib.AbstractContextManager[Staged]], asked: _Options
) -> CheckReport:
    exercise, only, isolation, names = asked.exercise, asked.only, asked.isolation, asked.names
    with _TURN:  # a turn of its own, given up while its box runs
        if isolation not in ISOLATION:
            raise TttlabError(f"isolation must be one of {', '.join(ISOLATION)}, got {isolation!r}")
        contained = box.isolation() if isolation != "off" else None
        if isolation == "required" and (contained is None or not contained.boxed):
            assert contained is not None
            raise TttlabError(f"{contained.describe}; --isolation required refuses to grade")
        described = "off: not contained (asked)" if contained is None else contained.describe
        given = names if isinstance(names, Mapping) else tuple(names)
        if exercise is not None and exercise not in EXERCISES:
            raise TttlabError(
                f"unknown exercise {exercise!r}; choose one of {', '.join(EXERCISES)}"
            )
        applied = limits(asked.time_limit, asked.call_seconds)
        try:
            with stage() as submission:
                report = _check_staged(
                    submission,
                    exercise,
                    given,
                    only,
                    time_limit=applied.time_limit,
                    memory_mb=asked.memory_mb,
                    call_seconds=applied.call_seconds,
                    contained=contained,
                    described=described,
                )
                return _timed(submission.told(report), applied)
        except NotebookError as error:  # the student's notebook, not the grader's failure
            return _nothing(Path(shown), str(error), described, status="fail")
        except box.TooLarge as error:  # the submission's own size
            return _nothing(Path(shown), f"could not be graded: {error}", described, "fail")


def _check_staged(
    submission: Staged,
    exercise: str | None,
    given: Mapping[str, str] | tuple[str, ...],
    only: tuple[str, ...],
    *,
    time_limit: float,
    memory_mb: int,
    call_seconds: float,
    contained: box.Isolation | None,
    described: str,
) -> CheckReport:
    """:func:`check_path` on the submission as staged (its notebooks as modules)."""
    path = submission.path
    files = python_files(path)
    if not files:
        return _nothing(path, f"no .py file or notebook in {path}", described, status="fail")
    sources = read_sources(files)
    modules = inherited(scan(path if path.is_dir() else path.parent, files), sources)
    spelt = spelled(sources, _loose(given))
    loose = {**spelt.renames, **_loose(given)}
    shapes = [exercise] if exercise else detect_all(modules, loose)
    if not shapes and submission.root is not None and not path.is_dir():
        # a file that defines nothing of its own: what it brings in (import *, %run) counts
        brought = [f for f in python_files(submission.root) if f != path]
        shapes = detect_all(scan(submission.root, brought) + modules, loose)
    if not shapes:
        problem = none_found(submission.original, EXERCISES)
        return _nothing(path, problem, described, status="fail")
    renames = {**spelt.renames, **_renames(given, shapes)}
    checks = {f for s in shapes for f in EXERCISES[s].functions}
    unknown = [f for f in only if f not in checks]
    if unknown:
        named = " and ".join(shapes)
        raise TttlabError(
            f"{named} has no check {unknown[0]!r}; its checks: {', '.join(sorted(checks))}"
        )
    shapes = [s for s in shapes if not only or set(only) & set(EXERCISES[s].functions)]
    reports = [
        _check_shape(
            path,
            submission,
            EXERCISES[s],
            files,
            modules,
            {k: v for k, v in renames.items() if k in EXERCISES[s].nameable()},
            only=tuple(f for f in only if f in EXERCISES[s].functions),
            time_limit=time_limit,
            memory_mb=memory_mb,
            call_seconds=call_seconds,
            boxed=contained is not None and contained.boxed,
            described=described,
        )
        for s in shapes
    ]
    report = reports[0] if len(reports) == 1 else merged(reports)
    return _spelt(report, spelt, shapes)


def _timed(report: CheckReport, applied: Limits) -> CheckReport:
    """``report`` with the time limits that applied, in its JSON and a note."""
    return replace(report, notes=(*report.notes, applied.note()), limits=applied.as_json())


def _spelt(report: CheckReport, spelt: Spelled, shapes: list[str]) -> CheckReport:
    """``report`` with a note for each name found as the student spells it (among the
    names of the shapes graded), and each name with several candidates."""
    said = spelt.said(n for s in shapes for n in EXERCISES[s].nameable())
    return replace(report, notes=(*said, *report.notes)) if said else report


def _renames(given: Mapping[str, str] | tuple[str, ...], shapes: list[str]) -> dict[str, str]:
    """``--name`` pairs checked against the names of every shape graded."""
    if len(shapes) == 1:
        return renames_of(given, EXERCISES[shapes[0]])
    renames: dict[str, str] = {}
    for ours, theirs in name_pairs(given):
        for shape in shapes:
            if ours in EXERCISES[shape].nameable():
                renames.update(renames_of({ours: theirs}, EXERCISES[shape]))
                break
        else:
            known = dict.fromkeys(n for shape in shapes for n in EXERCISES[shape].nameable())
            raise TttlabError(
                f"{ours!r} is not a name of the {' or '.join(shapes)} exercise; "
                f"their names: {', '.join(known)}"
            )
    return renames


def _check_shape(
    path: Path,
    submission: Staged,
    spec: Exercise,
    files: list[Path],
    scanned: list[Module],
    renames: dict[str, str],
    *,
    only: tuple[str, ...],
    time_limit: float,
    memory_mb: int,
    call_seconds: float,
    boxed: bool,
    described: str,
) -> CheckReport:
    folder = path if path.is_dir() else path.parent
    module = ""
    if spec.load == "import" and path.is_dir():
        found, problem = spec.entry_files(path)
        if problem:
            return _nothing(path, problem, described, status="fail")  # the folder's own
        files = found
        module = found[0].name
    elif spec.load == "import":
        module = path.name
    truth = exercise_truth()
    calls, phases = _planned(spec.key, only)
    graded = [module_of(f.relative_to(folder)) for f in files]
    modules = [m for m in scanned if m.name in graded]
    located = where(spec, modules, renames)
    job = Job(
        submission.root or path,
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
        dict(spec.answer_limits),
        {module: places.cells() for module, (_, places) in submission.notebooks.items()},
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
        report = grade(path, raw, job, calls, truth, spec, submission.original)
    except Exception as error:  # tttlab's own fault: this file's verdict, not the class's
        problem = f"could not be graded: internal error in ttt check ({error!r})"
        return _nothing(path, problem, described, status="error")
    sources = {str(f.relative_to(folder)): f.read_text(errors="replace") for f in files}
    hints = spec.hints(sources, report)
    # a name the exercise may leave out (play_game, an MDP's iteration) is a note's matter
    optional = [n for n in raw.missing if n in spec.optional]
    could_be = suggestions(spec, [n for n in raw.missing if n not in optional], modules)
    notes = (*report.notes, *suggestions(spec, optional, modules))
    problems = (*hints, *report.problems, *could_be)
    shown = located if len(files) > 1 or renames else {}
    return replace(report, problems=problems, notes=notes, found=shown, renamed=renames)


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


def _loose(given: Mapping[str, str] | tuple[str, ...]) -> dict[str, str]:
    """``--name`` pairs as a mapping before the exercise is known (for detecting it)."""
    return {ours: theirs for ours, theirs in name_pairs(given) if theirs}
