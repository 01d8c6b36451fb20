"""How the worker loads a student's code and calls it (standard library only).

A call is guarded: what it raises, ``sys.exit``, ``input()``, and (for the statements of a
file loaded by its definitions) a per-statement time limit become an OUTCOME
(:mod:`.schema`) instead of ending the worker. The limit counts the statement's own time
(:mod:`.clock`): the clock, less the time this process waited for a CPU; where the kernel
does not say, its CPU time.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from . import stubs
from .clock import OwnClock, Waits
from .schema import TEXT_CHARS, cut, describe
from .shapes.base import short

__all__ = ["InputCalled", "Namespace", "guarded", "load"]


class InputCalled(BaseException):
    """``input()`` was called (a graded module must not wait for a person)."""


class StatementTimeout(BaseException):
    """A top-level statement ran past the per-call limit while its file was loaded."""


class _Timer:
    """The running statement's limit: ``seconds`` of its own time (:mod:`.clock`), counted
    by a real-time timer that is set again for what is left when it rings early (the
    process waited for a CPU meanwhile); where the kernel does not say how long it waited,
    a timer of the process's CPU time."""

    clock: OwnClock | None = None
    seconds = 0.0

    @classmethod
    def start(cls, seconds: float) -> None:
        waits = Waits("self")
        cls.clock = OwnClock(waits) if waits.fds else None
        cls.seconds = seconds
        if cls.clock is None:
            signal.signal(signal.SIGPROF, _alarm)
            signal.setitimer(signal.ITIMER_PROF, seconds)
        else:
            signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, seconds)

    @classmethod
    def stop(cls) -> None:
        signal.setitimer(signal.ITIMER_REAL if cls.clock else signal.ITIMER_PROF, 0)
        if cls.clock is not None:
            cls.clock.waits.close()
            cls.clock = None

    @classmethod
    def left(cls) -> float:
        own = None if cls.clock is None else cls.clock.own()
        return 0.0 if own is None else cls.seconds - own


def _alarm(_signum: int, _frame: Any) -> None:
    left = _Timer.left()
    if left >= 0.005:  # the process waited for a CPU: the machine's time, not the statement's
        signal.setitimer(signal.ITIMER_REAL, left)
        return
    raise StatementTimeout


#: The errors an import statement's outcome may begin with.
_IMPORTS = ("ImportError", "ModuleNotFoundError")


def guarded(
    function: Callable[..., Any], args: tuple[Any, ...], seconds: float | None = None
) -> Any:
    """``["v", value]`` or what went wrong (an OUTCOME); ``seconds`` stops the call with a
    timer of this process, in its own time (the caller's clock is the one that counts)."""
    if seconds:
        _Timer.start(seconds)
    try:
        return ["v", function(*args)]
    except StatementTimeout:
        return ["t"]
    except InputCalled:
        return ["i"]
    except SystemExit as stop:
        return ["x", short(stop.code)]
    except RecursionError as error:
        return ["e", "RecursionError: maximum recursion depth exceeded" + _where(error)]
    except BaseException as error:
        try:
            message = " ".join(str(error)[:1000].split())
            if _STUDENT:  # the box's own folder means nothing to the student: their file's name
                message = message.replace(_STUDENT[0], "")
        except BaseException:
            message = ""
        name = type(error).__name__[:40]
        where = _where(error)
        if isinstance(error, ImportError) and message.split(": ", 1)[0] in _IMPORTS:
            # an import statement's outcome, already said (by a file loaded by its definitions)
            return ["e", cut(message, TEXT_CHARS - len(where)) + where]
        return ["e", (f"{name}: {cut(message, 80)}" if message else name) + where]
    finally:
        if seconds:
            _Timer.stop()


#: The folder of the student's files, once :func:`load` has loaded them.
_STUDENT: list[str] = []


def _where(error: BaseException) -> str:
    """`` (agent.py line 31)``: the last line of the student's own files (those under the
    folder :func:`load` loaded them from) that the error passed through, or nothing (it
    arose elsewhere). Only the traceback's code objects are read: none of the student's
    code runs."""
    if not _STUDENT:
        return ""
    folder = _STUDENT[0]
    found = ""
    try:
        trace = error.__traceback__
        for _ in range(10_000):  # a traceback as deep as a recursion allows
            if trace is None:
                break
            file = trace.tb_frame.f_code.co_filename
            if isinstance(file, str) and file.startswith(folder):
                found = f" ({os.path.relpath(file, folder)[:50]} line {trace.tb_lineno})"
            trace = trace.tb_next
    except BaseException:
        return ""
    return found


class Namespace:
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
        beside = _own_folder_first(self.path, self.folder)
        if beside is not None:  # its imports, at the top and in its functions
            module.__dict__["__builtins__"] = beside
        for node in tree.body:
            docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            if not isinstance(node, _KEPT) and not docstring and not _runs_a_file(node):
                self.skipped.append(_lines(name, node))
                continue
            code = compile(ast.Module([node], []), self.path, "exec")
            folder = self.folder

            def run(code: Any = code) -> None:
                exec(code, module.__dict__)

            outcome = guarded(stubs.with_stubs, (run, folder), self.seconds)
            if outcome[0] != "v":
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    raise ImportError(outcome[1] if outcome[0] == "e" else describe(outcome))
                self.skipped.append(f"{_lines(name, node)} ({describe(outcome)})")


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


def _own_folder_first(path: str, folder: str) -> dict[str, Any] | None:
    """The builtins of the file ``path`` of a sub-folder of the student's ``folder`` (None:
    a file of the folder itself), whose imports are as Python makes them when that file is
    the script, its own folder first on the path: a top-level name that is a module beside
    it (``name.py``, a package or a folder) is that module, imported under the name of its
    path (``tick_tack_toe/main.py``'s ``from tick_tack_toe import TickTackToe`` takes
    ``tick_tack_toe.tick_tack_toe``, not the folder ``tick_tack_toe``). Where the module
    beside it is not the one meant (``from game.game import Game`` in ``game/agent.py``:
    the package's own name; or it lacks a name imported from it), the import is made from
    the folder, as when the file is imported from there. Relative imports, and the modules
    built into Python, are as ever."""
    here = os.path.dirname(path)
    parts = os.path.relpath(here, folder).split(os.sep)
    if parts == [os.curdir] or any(not p or "." in p for p in parts):
        return None
    base = ".".join(parts)
    plain = builtins.__import__

    def near(top: str) -> bool:
        if not top or top in sys.builtin_module_names:
            return False
        where = os.path.join(here, top)
        return os.path.isfile(where + ".py") or os.path.isdir(where)

    def has(module: Any, names: Any) -> bool:
        return all(n == "*" or hasattr(module, n) for n in names)

    def imported(
        name: str,
        globals: Any = None,
        locals: Any = None,
        fromlist: Any = (),
        level: int = 0,
    ) -> Any:
        top = name.partition(".")[0]
        if level or not near(top):
            return plain(name, globals, locals, fromlist, level)
        full = f"{base}.{name}"
        try:
            module = plain(full, globals, locals, fromlist, 0)
        except ModuleNotFoundError as error:  # no such module beside it: from the folder
            missing = error.name or ""
            if not missing.startswith(base + ".") or not f"{full}.".startswith(missing + "."):
                raise
            return plain(name, globals, locals, fromlist, level)
        if not fromlist:
            return sys.modules[f"{base}.{top}"]
        if has(module, fromlist):
            return module
        try:
            other = plain(name, globals, locals, fromlist, level)
        except ImportError:
            return module
        return other if has(other, fromlist) else module

    own = dict(vars(builtins))
    own["__import__"] = imported
    return own


def _lines(name: str, node: ast.stmt) -> str:
    end = node.end_lineno or node.lineno
    return (
        f"{name} line {node.lineno}" if end == node.lineno else f"{name} lines {node.lineno}-{end}"
    )


def _runs_a_file(node: ast.stmt) -> bool:
    """Whether ``node`` is a notebook's ``%run FILE`` (``_ttt_run(...)``, as the grader
    writes it): it brings the file's names in, as an import does, so it is kept."""
    call = node.value if isinstance(node, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "_ttt_run"
    )


def _by_cells(spec: Any, cells: list[list[int]], folder: str, stopped: list[str]) -> Any:
    """A notebook's module run a cell at a time, as a kernel runs it: a cell that raises
    (or asks for input, or exits) stops there, is named in ``stopped``, and the next cell
    runs."""
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    with open(spec.origin, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    name = os.path.relpath(spec.origin, folder)
    for first, last in cells:
        text = "\n" * (first - 1) + "\n".join(lines[first - 1 : last])
        code = compile(text, spec.origin, "exec")

        def run(code: Any = code) -> None:
            exec(code, module.__dict__)

        outcome = guarded(stubs.with_stubs, (run, folder))
        if outcome[0] != "v":
            span = f"line {first}" if first == last else f"lines {first}-{last}"
            stopped.append(f"{name} {span} ({describe(outcome)})")
    return module


def load(job: dict[str, Any], skipped: list[str], stopped: list[str] | None = None) -> Namespace:
    """The student's names: one module imported whole (``load`` "import"; a notebook's a
    cell at a time, each cell that stops named in ``stopped``), or every file of the folder
    (or the one file) with its definitions only."""
    folder = os.getcwd()
    sys.path.insert(0, folder)
    _STUDENT[:] = [os.path.join(folder, "")]
    renames, lookup = dict(job["renames"]), dict(job["lookup"])
    if job["load"] == "import":
        path = os.path.join(folder, job["path"])
        spec = importlib.util.spec_from_file_location(job["module"], path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {job['path']}")
        loader = spec.loader
        cells = job.get("cells", {}).get(job["path"])
        if cells:
            found = _by_cells(spec, cells, folder, stopped if stopped is not None else [])
            return Namespace({job["module"]: found}, renames, lookup)

        def run() -> Any:
            module = importlib.util.module_from_spec(spec)
            sys.modules[job["module"]] = module
            loader.exec_module(module)
            return module

        return Namespace({job["module"]: stubs.with_stubs(run, folder)}, renames, lookup)
    sys.meta_path.insert(0, _Folder(folder, job["call_seconds"], skipped))
    modules = {name: importlib.import_module(name) for name in job["modules"]}
    return Namespace(modules, renames, lookup)
