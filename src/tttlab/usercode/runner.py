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

Run as ``python -m tttlab.usercode.runner JOB.json``.
"""

from __future__ import annotations

import builtins
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


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except BaseException:
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


class Codec:
    """Boards between the job's strings ("X.O......") and the student's list of lists."""

    def __init__(self, module: Any) -> None:
        self.x, self.o, self.empty = module.X, module.O, module.EMPTY
        self.cell = {"X": self.x, "O": self.o, ".": self.empty}

    def board(self, text: str) -> list[list[Any]]:
        return [[self.cell[c] for c in text[r * 3 : r * 3 + 3]] for r in range(3)]

    def symbol(self, value: Any) -> str | None:
        """ "X", "O" or "." for the student's constants, else None."""
        for name, constant in (("X", self.x), ("O", self.o), (".", self.empty)):
            try:
                if value is constant or (type(value) is type(constant) and value == constant):
                    return name
            except BaseException:
                return None
        return None

    def encode_board(self, value: Any) -> Any:
        if not isinstance(value, (list, tuple)) or len(value) != 3:
            return ["g", _short(value)]
        out = []
        for row in value:
            if not isinstance(row, (list, tuple)) or len(row) != 3:
                return ["g", _short(value)]
            for cell in row:
                name = self.symbol(cell)
                if name is None:
                    return ["g", _short(value)]
                out.append(name)
        return "".join(out)


def _pair(value: Any) -> int | None:
    """The cell index of an ``(i, j)`` action with 0 <= i, j < 3, else None."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return None
    i, j = value
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (i, j)):
        try:  # numpy integers
            i, j = int(i.__index__()), int(j.__index__())
        except BaseException:
            return None
    if 0 <= i < 3 and 0 <= j < 3:
        return int(i) * 3 + int(j)
    return None


def _encode(function: str, value: Any, codec: Codec) -> Any:
    if function in ("player", "winner"):
        name = codec.symbol(value)
        return name if name is not None else ["g", _short(value)]
    if function == "terminal":
        return value if type(value) is bool else ["g", _short(value)]
    if function == "utility":
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (-1, 0, 1):
            return int(value)
        return ["g", _short(value)]
    if function == "actions":
        try:
            items = list(value)
        except BaseException:
            return ["g", _short(value)]
        cells = [_pair(a) for a in items]
        if any(c is None for c in cells) or isinstance(value, (str, bytes)):
            return ["g", _short(value)]
        return sorted(c for c in cells if c is not None)
    if function == "minimax":
        if value is None:
            return None
        cell = _pair(value)
        return cell if cell is not None else ["g", _short(value)]
    return codec.encode_board(value)  # result


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
        return ["x", _short(stop.code)]
    except RecursionError:
        return ["e", "RecursionError: maximum recursion depth exceeded"]
    except BaseException as error:
        message = " ".join(str(error).split())[:80]
        return ["e", f"{type(error).__name__}: {message}" if message else type(error).__name__]
    finally:
        if seconds:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _load(path: str, name: str, folder: str) -> Any:
    sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _limit_memory(megabytes: int) -> None:
    try:
        import resource

        limit = megabytes * 2**20
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError):  # not on this platform: the parent's timer stays
        pass


def main(argv: list[str]) -> int:
    with open(argv[0]) as f:
        job = json.load(f)
    results = os.fdopen(os.dup(1), "w", buffering=1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 0)
    capture = _Capture()
    sys.stdout = capture
    sys.stdin = io.StringIO()
    builtins.input = _no_input
    signal.signal(signal.SIGALRM, _alarm)
    _limit_memory(int(job["memory_mb"]))

    def emit(item: Any) -> None:
        results.write(json.dumps(item, separators=(",", ":")) + "\n")

    loaded = _call(_load, (job["path"], job["module"], job["folder"]), job["import_seconds"])
    if loaded[0] != "v":
        emit({"import": loaded, "printed": capture.writes, "first_print": capture.first})
        return 0
    module = loaded[1]
    missing = [n for n in job["names"] if not hasattr(module, n)]
    emit({"import": ["v"], "missing": missing, "printed": capture.writes})
    if missing:
        return 0
    try:
        codec = Codec(module)
        for text in "XO.":
            codec.symbol(codec.cell[text])
    except BaseException as error:
        emit({"constants": _short(error)})
        return 0
    initial = _call(module.initial_state, (), job["call_seconds"])
    emit({"initial_state": _encode("result", initial[1], codec) if initial[0] == "v" else initial})

    for function, cases in job["phases"]:
        emit({"phase": function})
        target = getattr(module, function)
        seconds = None if function == "minimax" else job["call_seconds"]
        for case in cases:
            if function == "result":
                board = codec.board(case[0])
                before = [list(row) for row in board]  # cells are the student's constants
                action = tuple(case[1])
                start = time.perf_counter()
                outcome = _call(target, (board, action), seconds)
                changed = board != before
            else:
                board = codec.board(case)
                start = time.perf_counter()
                outcome = _call(target, (board,), seconds)
                changed = False
            elapsed = time.perf_counter() - start
            if outcome[0] == "v":
                outcome = ["v", _encode(function, outcome[1], codec)]
            if changed:
                outcome.append("changed")
            if function == "minimax":
                outcome.append(round(elapsed, 6) if math.isfinite(elapsed) else None)
            emit(outcome)
            if outcome[0] == "t":  # the same loop would stop every later call too
                break
        emit({"end": function, "printed": capture.writes, "first_print": capture.first})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
