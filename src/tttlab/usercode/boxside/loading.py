"""How the worker loads a student's code and calls it (standard library only).

A call is guarded: what it raises, ``sys.exit``, ``input()``, and (for the statements of a
file loaded by its definitions) a per-statement time limit become an OUTCOME
(:mod:`.schema`) instead of ending the worker.
"""

from __future__ import annotations

import ast
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
from .schema import describe
from .shapes.base import short

__all__ = ["InputCalled", "Namespace", "guarded", "load"]


class InputCalled(BaseException):
    """``input()`` was called (a graded module must not wait for a person)."""


class StatementTimeout(BaseException):
    """A top-level statement ran past the per-call limit while its file was loaded."""


def _alarm(_signum: int, _frame: Any) -> None:
    raise StatementTimeout


def guarded(
    function: Callable[..., Any], args: tuple[Any, ...], seconds: float | None = None
) -> Any:
    """``["v", value]`` or what went wrong (an OUTCOME); ``seconds`` stops the call with a
    timer of this process (the caller's clock is the one that counts)."""
    if seconds:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return ["v", function(*args)]
    except StatementTimeout:
        return ["t"]
    except InputCalled:
        return ["i"]
    except SystemExit as stop:
        return ["x", short(stop.code)]
    except RecursionError:
        return ["e", "RecursionError: maximum recursion depth exceeded"]
    except BaseException as error:
        try:
            message = " ".join(str(error)[:1000].split())[:80]
        except BaseException:
            message = ""
        name = type(error).__name__[:40]
        return ["e", f"{name}: {message}" if message else name]
    finally:
        if seconds:
            signal.setitimer(signal.ITIMER_REAL, 0)


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
        for node in tree.body:
            docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            if not isinstance(node, _KEPT) and not docstring:
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


def _lines(name: str, node: ast.stmt) -> str:
    end = node.end_lineno or node.lineno
    return (
        f"{name} line {node.lineno}" if end == node.lineno else f"{name} lines {node.lineno}-{end}"
    )


def load(job: dict[str, Any], skipped: list[str]) -> Namespace:
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

        return Namespace({job["module"]: stubs.with_stubs(run, folder)}, renames, lookup)
    sys.meta_path.insert(0, _Folder(folder, job["call_seconds"], skipped))
    modules = {name: importlib.import_module(name) for name in job["modules"]}
    return Namespace(modules, renames, lookup)
