"""The child process of ``ttt check``: import a student's module and make the calls a job
lists, writing what came back as one JSON line per call.

It uses the standard library only (it must start fast and must not let a student's module
see tttlab's state). Before the student's code runs it:

- limits its own memory (``RLIMIT_AS``);
- points file descriptor 1 at /dev/null and keeps the real stdout, a pipe to the parent, for
  results only, so that nothing the student prints (even from C) can corrupt them;
- replaces ``input`` with a function that raises, and turns ``sys.exit`` into a reported
  result rather than an exit;
- stops any call that takes more than the job's per-call limit (a timer signal).

Each line is a JSON array: ``["v", value]`` a value came back (boards, actions and
symbols already encoded against the student's own ``X``, ``O`` and ``EMPTY``), ``["e",
"TypeError: ..."]`` it raised, ``["x", code]`` it called ``sys.exit``, ``["i"]`` it called
``input()``, ``["t"]`` it ran past the per-call limit. Lines that are objects mark phases,
the import and what was printed.

Run as ``python -I -B runner.py JOB.json`` from a copy of this file, ``protocol.py`` and the
``exercises`` package in the submission's box (:mod:`tttlab.usercode.box`): tttlab is not
importable there, and nothing of the grade is looked up after the student's module has run.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import json
import math
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

__all__ = ["main"]


def _grader() -> Any:
    """This file's folder as a package of a name no student's module can shadow: the
    protocol and the exercise shapes, copied beside this file into the box."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "_ttt_check", os.path.join(here, "__init__.py"), submodule_search_locations=[here]
    )
    assert spec is not None
    assert spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules["_ttt_check"] = package
    spec.loader.exec_module(package)
    return package


_grader()
_exercises = importlib.import_module("_ttt_check.exercises")
_describe: Callable[[list[Any]], str] = importlib.import_module("_ttt_check.protocol").describe
CHILDREN: dict[str, Any] = dict(_exercises.CHILDREN)
short: Callable[[Any], str] = importlib.import_module("_ttt_check.exercises.base").short
_stubs = importlib.import_module("_ttt_check.stubs")


class _NoTttlab(importlib.abc.MetaPathFinder):
    """tttlab is not for the graded code (in a box it is not even there)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname == "tttlab" or fullname.startswith("tttlab."):
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


class InputCalled(BaseException):
    """``input()`` was called (a graded module must not wait for a person)."""


class CallTimeout(BaseException):
    """A single call ran past the per-call limit."""


class _Capture(io.TextIOBase):
    """Counts what the student prints and keeps the first line of it."""

    def __init__(self) -> None:
        self.writes = 0
        self.first = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text.strip():
            self.writes += 1
            if not self.first:
                self.first = text.strip().splitlines()[0][:80]
        return len(text)


def _no_input(*_args: Any, **_kwargs: Any) -> str:
    raise InputCalled


def _alarm(_signum: int, _frame: Any) -> None:
    raise CallTimeout


def _call(function: Callable[..., Any], args: tuple[Any, ...], seconds: float | None) -> Any:
    """["v", value] or what went wrong, as the module docstring lists."""
    if seconds:
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return ["v", function(*args)]
    except CallTimeout:
        return ["t"]
    except InputCalled:
        return ["i"]
    except SystemExit as stop:
        return ["x", short(stop.code)]
    except RecursionError:
        return ["e", "RecursionError: maximum recursion depth exceeded"]
    except BaseException as error:
        message = " ".join(str(error).split())[:80]
        return ["e", f"{type(error).__name__}: {message}" if message else type(error).__name__]
    finally:
        if seconds:
            signal.setitimer(signal.ITIMER_REAL, 0)


class _Namespace:
    """The names of a student's modules, under the student's names for them (``renames``):
    looked up first where the grader read that they are defined (``lookup``, a module's
    name), then in every module in order."""

    def __init__(self, modules: dict[str, Any], renames: dict[str, str], lookup: dict[str, str]):
        self.modules, self.renames, self.lookup = modules, renames, lookup

    def __getattr__(self, name: str) -> Any:
        theirs = self.renames.get(name, name)
        first = self.modules.get(self.lookup.get(name, ""))
        for module in (first, *self.modules.values()):
            if module is not None and theirs in vars(module):
                return vars(module)[theirs]
        raise AttributeError(theirs)


_KEPT = (
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Assign,
    ast.AnnAssign,
)


class _Definitions(importlib.abc.Loader):
    """Loads a student's file without its top-level game or training: imports, functions,
    classes and assignments run (each under the per-call limit); loops, calls and the
    rest are skipped and reported."""

    def __init__(self, path: str, folder: str, seconds: float, skipped: list[str]) -> None:
        self.path, self.folder, self.seconds, self.skipped = path, folder, seconds, skipped

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: Any) -> None:
        with open(self.path, encoding="utf-8", errors="replace") as f:
            tree = ast.parse(f.read(), filename=self.path)
        name = os.path.relpath(self.path, self.folder)
        for node in tree.body:
            docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            if not isinstance(node, _KEPT) and not docstring:
                self.skipped.append(_lines(name, node))
                continue
            code = compile(ast.Module([node], []), self.path, "exec")
            folder = self.folder

            def run(code: Any = code) -> None:
                exec(code, module.__dict__)

            outcome = _call(_stubs.with_stubs, (run, folder), self.seconds)
            if outcome[0] != "v":
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    raise ImportError(outcome[1] if outcome[0] == "e" else _describe(outcome))
                self.skipped.append(f"{_lines(name, node)} ({_describe(outcome)})")


class _Folder(importlib.abc.MetaPathFinder):
    """Imports of the student's own files load their definitions only."""

    def __init__(self, folder: str, seconds: float, skipped: list[str]) -> None:
        self.folder, self.seconds, self.skipped = folder, seconds, skipped

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        where = os.path.join(self.folder, *fullname.split("."))
        init = os.path.join(where, "__init__.py")
        for file, package in ((where + ".py", None), (init, [where])):
            if os.path.isfile(file):
                loader = _Definitions(file, self.folder, self.seconds, self.skipped)
                return importlib.util.spec_from_file_location(
                    fullname, file, loader=loader, submodule_search_locations=package
                )
        if os.path.isdir(where) and "." not in os.path.basename(where):  # a namespace package
            spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
            spec.submodule_search_locations = [where]
            return spec
        return None


def _lines(name: str, node: ast.stmt) -> str:
    end = node.end_lineno or node.lineno
    return (
        f"{name} line {node.lineno}" if end == node.lineno else f"{name} lines {node.lineno}-{end}"
    )


def _load(job: dict[str, Any], skipped: list[str]) -> Any:
    """The student's names: one module imported whole (``load`` "import"), or every file
    of the folder (or the one file) with its definitions only."""
    folder = os.getcwd()
    sys.path.insert(0, folder)
    renames, lookup = dict(job["renames"]), dict(job["lookup"])
    if job["load"] == "import":
        path = os.path.join(folder, job["path"])
        spec = importlib.util.spec_from_file_location(job["module"], path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {job['path']}")
        loader = spec.loader

        def run() -> Any:
            module = importlib.util.module_from_spec(spec)
            sys.modules[job["module"]] = module
            loader.exec_module(module)
            return module

        return _Namespace({job["module"]: _stubs.with_stubs(run, folder)}, renames, lookup)
    sys.meta_path.insert(0, _Folder(folder, job["call_seconds"], skipped))
    modules = {name: importlib.import_module(name) for name in job["modules"]}
    return _Namespace(modules, renames, lookup)


def _limit(limits: dict[str, int]) -> None:
    """Set this process's rlimits (soft and hard: the student's code cannot raise them)."""
    try:
        import resource
    except ImportError:  # not on this platform: the parent's timer stays
        return
    for name, value in limits.items():
        which = getattr(resource, name, None)
        if which is None:
            continue
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (value, value))


def _stage(source: str) -> None:
    """Copy the submission's files from ``source`` into the working folder (the box's
    writable tmpfs)."""
    import shutil

    shutil.copytree(source, os.getcwd(), dirs_exist_ok=True)


def _hide_tttlab() -> None:
    for entry in list(sys.path):
        if os.path.isdir(os.path.join(entry or ".", "tttlab")):
            sys.path.remove(entry)
    sys.meta_path.insert(0, _NoTttlab())


def main(argv: list[str]) -> int:
    with open(argv[0]) as f:
        job = json.load(f)
    _limit(job["limits"])
    if job.get("stage"):
        _stage(job["stage"])
    _hide_tttlab()
    shape_class = CHILDREN[job["exercise"]]  # bound before the student's code runs
    dumps, clock, phases = json.dumps, time.perf_counter, list(job["phases"])
    names, unlimited, timed = list(job["names"]), set(job["unlimited"]), set(job["timed"])
    call_seconds = float(job["call_seconds"])
    results = os.fdopen(os.dup(1), "w", buffering=1 << 16)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 0)
    capture = _Capture()
    sys.stdout = capture
    sys.stdin = io.StringIO()
    builtins.input = _no_input
    signal.signal(signal.SIGALRM, _alarm)
    if hasattr(signal, "SIGXFSZ"):  # past the file size limit a write fails, not the process
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    flushed = [clock()]

    def emit(item: Any, now: bool = True) -> None:
        """Write one line; flushed at once, or (during a phase of quick calls) at most
        20 ms late, so that a kill or a crash loses little and the pipe is not written a
        line at a time (a quarter of the child's time, measured)."""
        results.write(dumps(item, separators=(",", ":")) + "\n")
        if now or clock() - flushed[0] > 0.02:
            results.flush()
            flushed[0] = clock()

    skipped: list[str] = []
    loaded = _call(_load, (job, skipped), job["import_seconds"])
    if loaded[0] != "v":
        emit({"import": loaded, "printed": capture.writes, "first_print": capture.first})
        return 0
    ns = loaded[1]

    def has(name: str) -> bool:
        return any(_defined(ns, n) for n in name.split("|"))

    missing = [n for n in names if not has(n)]
    emit(
        {
            "import": ["v"],
            "missing": missing,
            "skipped": skipped,
            "stubbed": _stubs.STUBBED,
            "printed": capture.writes,
        }
    )
    shape = shape_class(ns, dict(job["renames"]))
    try:
        prepared = shape.prepare()
    except BaseException as error:
        emit({"constants": short(error)})
        return 0
    if prepared:
        emit(prepared)

    def run(target: Callable[..., Any], *args: Any) -> list[Any]:
        outcome: list[Any] = _call(target, args, seconds)
        return outcome

    for function, cases, needs in phases:
        if not all(has(n) for n in needs):
            continue
        emit({"phase": function})
        seconds = None if function in unlimited else call_seconds
        slow = function in unlimited  # flushed before each call: it may never return
        for case in cases:
            start = clock()
            outcome = shape.call(function, case, run)
            elapsed = clock() - start
            if function in timed:
                outcome.append(round(elapsed, 6) if math.isfinite(elapsed) else None)
            emit(outcome, now=slow)
            if outcome[0] == "t":  # the same loop would stop every later call too
                break
        emit({"end": function, "printed": capture.writes, "first_print": capture.first})
    return 0


def _defined(ns: Any, name: str) -> bool:
    try:
        getattr(ns, name)
    except BaseException:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
