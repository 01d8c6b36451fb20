"""What every exercise's side in the box shares: boards arrive as 9-character strings of
``X``, ``O`` and ``.``; each shape turns them into the student's own representation, makes
one call per case through ``run`` (which runs the student's code and reports how it went),
and turns the value into tttlab's terms, or into ``["g", repr]`` when it is no answer at all.

Turning a value into an answer runs the student's code too (``__eq__``, ``__iter__``,
``__index__``...): an exception there makes the value no answer, never the call's own error,
and the caller's clock covers it as it covers the call.
"""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Callable
from typing import Any

__all__ = [
    "Child",
    "defined",
    "drawn",
    "garbage_of",
    "number",
    "pair",
    "seeded",
    "short",
    "truth_of",
    "whole",
]

Run = Callable[..., list[Any]]


def short(value: Any) -> str:
    """``repr(value)`` on one line, cut to 60 characters (whatever ``__repr__`` does)."""
    try:
        text = repr(value)
    except BaseException:
        text = f"<{type(value).__name__}>"
    text = " ".join(text[:10_000].split())
    return text if len(text) <= 60 else text[:57] + "..."


def garbage_of(value: Any) -> list[str]:
    return ["g", short(value)]


def whole(value: Any) -> int | None:
    """An integer (Python's or numpy's, or a float with no fraction), else None (a string
    of digits too: ``"3"`` is no cell)."""
    if isinstance(value, (bool, str, bytes, bytearray)):
        return None
    try:
        return int(value.__index__())
    except BaseException:
        pass
    try:
        number = float(value)
    except BaseException:
        return None
    return int(number) if number.is_integer() else None


def number(value: Any) -> float | None:
    """A number as a float (Python's or numpy's, or an array or list of one element, as a
    value table kept as a column, ``np.zeros((n, 1))``, gives), else None."""
    for _ in range(4):
        if isinstance(value, (str, bytes)):
            return None
        try:
            return float(value)
        except BaseException:
            pass
        try:
            if len(value) != 1:
                return None
            value = value[0]
        except BaseException:
            return None
    return None


def truth_of(value: Any) -> bool | None:
    """True or False (Python's or numpy's), else None."""
    if type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    return None


def pair(value: Any) -> int | None:
    """The cell index of an ``(i, j)`` action with 0 <= i, j < 3, else None."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return None
    i, j = (whole(v) for v in value)
    if i is None or j is None or not (0 <= i < 3 and 0 <= j < 3):
        return None
    return i * 3 + j


class Child:
    """One exercise shape, the box's side: a call per function, its value encoded.
    ``renames`` maps the exercise's names of attributes and methods to the student's."""

    #: The exercise's names the shape stands in for from the student's other code (a
    #: helper that serves both seats for ``initialV_x`` and ``initialV_o``): not missing.
    supplied: frozenset[str] | set[str] = frozenset()

    def __init__(self, ns: Any, renames: dict[str, str] | None = None) -> None:
        self.ns = ns
        self.renames = renames or {}

    def defined(self, name: str) -> bool:
        """Whether the student's code defines ``name`` (under the student's name for it)."""
        return defined(self.ns, name)

    def functions(self) -> list[tuple[str, Any]]:
        """The functions the student's own modules define (name, function), in order."""
        found: list[tuple[str, Any]] = []
        modules = getattr(self.ns, "modules", None)
        listed = [self.ns] if type(self.ns).__name__ == "module" else dict(modules or {}).values()
        for module in listed:
            try:
                items = list(vars(module).items())
            except BaseException:
                continue
            for name, value in items:
                if type(value).__name__ == "function" and getattr(
                    value, "__module__", None
                ) == getattr(module, "__name__", ""):
                    found.append((str(name), value))
        return found

    def at(self, obj: Any, name: str) -> Any:
        """``obj.name``, under the student's name for it (``--name board=tiles``)."""
        return getattr(obj, self.renames.get(name, name))

    def prepare(self) -> dict[str, Any] | None:
        """Anything to report before the calls (a dict), or None."""
        return None

    def call(self, function: str, case: Any, run: Run) -> list[Any]:
        """Make one call through ``run(callable, *args)`` and encode its value."""
        raise NotImplementedError

    @staticmethod
    def encoded(outcome: list[Any], encode: Callable[[Any], Any]) -> list[Any]:
        """``outcome`` with its value turned into an answer by ``encode``: a value that
        cannot be turned (its own code raised) is no answer."""
        if outcome[0] == "v":
            try:
                outcome[1] = encode(outcome[1])
            except BaseException:
                outcome[1] = garbage_of(outcome[1])
        return outcome


def defined(ns: Any, name: str) -> bool:
    """Whether the student's names ``ns`` hold ``name`` (looking it up runs no code of
    theirs but a module's ``__getattr__``, whose failure says no)."""
    try:
        getattr(ns, name)
    except BaseException:
        return False
    return True


def drawn(seed: int, count: int) -> list[float]:
    """``count`` values in [0, 1) drawn from ``seed``: a learning check's table before the
    student's code runs, drawn alike in the box and by the grader (who never reads it back
    from the box)."""
    rng = random.Random(seed)
    return [rng.random() for _ in range(count)]


def seeded(seed: int) -> None:
    """Seed ``random``, and numpy's global generator where it is imported: the student's
    code may draw from either, and a case replays alike."""
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        with contextlib.suppress(BaseException):
            numpy.random.seed(seed % 2**32)
