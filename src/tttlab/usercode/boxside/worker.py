"""The worker: the process in the box that imports the student's code and answers the
caller's questions, one at a time (standard library only).

Before the student's code runs it limits itself (rlimits, soft and hard), hides tttlab,
points file descriptors 0 and 1 at /dev/null (keeping copies of its pipes to the caller),
replaces ``input`` with a function that raises, and says ``{"ready": true}``. Everything
after that may be spoiled by the student's code, and the caller believes it accordingly:
an answer counts only for the question whose random number it repeats, and only its form
is taken (:mod:`.schema`); the clock is the caller's.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib.abc
import io
import json
import os
import signal
import sys
from typing import Any

from .loading import InputCalled, guarded, load
from .schema import MODULE, NOTES, cut
from .shapes import CHILDREN
from .shapes.base import defined
from .stubs import STUBBED

__all__ = ["main"]


class _NoTttlab(importlib.abc.MetaPathFinder):
    """tttlab is not for the graded code (in a box it is not even there)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname == "tttlab" or fullname.startswith("tttlab."):
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


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
                self.first = cut(text.strip().splitlines()[0][:1000], 80)
        return len(text)


def _no_input(*_args: Any, **_kwargs: Any) -> str:
    raise InputCalled


def _limit(limits: dict[str, int]) -> None:
    """Set this process's rlimits (soft and hard: the student's code cannot raise them)."""
    try:
        import resource
    except ImportError:  # not on this platform: the caller's clock stays
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


def _hide_tttlab() -> None:
    for entry in list(sys.path):
        if os.path.isdir(os.path.join(entry or ".", "tttlab")):
            sys.path.remove(entry)
    sys.meta_path.insert(0, _NoTttlab())


def _prepared(said: dict[str, Any]) -> dict[str, Any]:
    """What a shape's ``prepare`` said, as the load answer carries it: ``notes`` (how the
    student's code was taken, where not the text's way) and ``problem`` (why no check can
    run: an agent that no way builds)."""
    found: dict[str, Any] = {}
    notes = said.get("notes")
    if isinstance(notes, list):
        found["notes"] = [str(n) for n in notes[:NOTES]]
    problem = said.get("problem")
    if problem is not None:
        found["problem"] = str(problem)
    making = said.get("making")
    if isinstance(making, list) and len(making) == 3:  # the line to paste, X's and O's symbol
        found["making"] = [str(m) for m in making]
    return found


class _Worker:
    def __init__(self, job: dict[str, Any], answers: int, capture: _Capture) -> None:
        self.job, self.answers, self.capture = job, answers, capture
        self.shape: Any = None
        #: The exercise's side in the box, bound before any of the student's code runs.
        self.shape_class = CHILDREN[job["exercise"]]
        self.told = False

    def say(self, item: dict[str, Any]) -> None:
        try:
            line = json.dumps(item, separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError, RecursionError) as error:  # not the student's doing
            line = json.dumps({"n": item.get("n"), "o": ["e", f"unanswerable: {error}"[:200]]})
        data = memoryview(line.encode("utf-8", "surrogatepass") + b"\n")
        while data:
            data = data[os.write(self.answers, data) :]

    def load(self, nonce: str) -> None:
        job = self.job
        skipped: list[str] = []
        stopped: list[str] = []
        loaded = guarded(load, (job, skipped, stopped))
        answer: dict[str, Any] = {"n": nonce, "o": loaded[:1] if loaded[0] == "v" else loaded}
        if loaded[0] == "v":
            ns = loaded[1]
            names = list(job["names"])
            answer["skipped"] = skipped
            answer["stubbed"] = [m for m in STUBBED if MODULE.fullmatch(m)]
            self.shape = self.shape_class(ns, dict(job["renames"]))
            prepared = guarded(self.shape.prepare, ())
            supplied = set(self.shape.supplied)  # stood in for by the student's other code
            answer["missing"] = [
                n for n in names if not any(defined(ns, m) or m in supplied for m in n.split("|"))
            ]
            if prepared[0] != "v":
                answer["constants"] = prepared[1] if len(prepared) > 1 else prepared[0]
            elif isinstance(prepared[1], dict):  # how the shape took the student's code
                answer.update(_prepared(prepared[1]))
            if stopped:  # a notebook's cells that stopped, as in a kernel
                shown = ", ".join(stopped[:3]) + (
                    f" and {len(stopped) - 3} more" * (len(stopped) > 3)
                )
                said = f"cells that stopped, as a kernel stops them (the next cells run): {shown}"
                answer["notes"] = [said, *answer.get("notes", [])][:NOTES]
        self.say(self.printed(answer))

    def answer(self, nonce: str, function: str, case: Any) -> None:
        def run(target: Any, *args: Any) -> list[Any]:
            outcome: list[Any] = guarded(target, args)
            return outcome

        outcome = self.shape.call(function, case, run)
        self.say(self.printed({"n": nonce, "o": outcome}))

    def printed(self, answer: dict[str, Any]) -> dict[str, Any]:
        """``answer`` with the count of what was printed, and the first line printed in the
        first answer after it."""
        answer["p"] = self.capture.writes
        if self.capture.first and not self.told:
            answer["fp"], self.told = self.capture.first, True
        return answer


def main(argv: list[str]) -> int:
    with open(argv[0]) as f:
        job = json.load(f)
    _limit(job["limits"])
    _hide_tttlab()
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    capture = _Capture()
    sys.stdout = capture
    sys.stdin = io.StringIO()
    builtins.input = _no_input
    if hasattr(signal, "SIGXFSZ"):  # past the file size limit a write fails, not the process
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    worker = _Worker(job, answers, capture)
    worker.say({"ready": True})
    for line in requests:
        question = json.loads(line)
        try:
            if question.get("import"):
                worker.load(question["n"])
            else:
                worker.answer(question["n"], question["f"], question["c"])
        except Exception as error:  # the worker's own code failed, not a call of the student's
            worker.say({"n": question["n"], "internal": f"{type(error).__name__}: {error}"[:200]})
    return 0
