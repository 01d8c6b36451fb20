"""The one protocol between ``ttt check``'s child and its parent (standard library only: the
child's copy of it is in the box).

The child writes one JSON value per line on its results channel:

- an object for each mark: first the import's (``{"import": OUTCOME, "missing": [names],
  "skipped": [lines], "stubbed": [modules], "printed": n}``), then ``{"constants": text}``
  when the exercise's constants cannot be compared, and for each check ``{"phase": name}``
  ... ``{"end": name, "printed": n, "first_print": text}``;
- an array for each call of the running check, its OUTCOME: ``["v", value]`` a value came
  back (encoded by the shape; ``"changed"`` may follow when it wrote into its input),
  ``["e", "TypeError: ..."]`` it raised, ``["x", code]`` it called ``sys.exit``, ``["i"]`` it
  called ``input()``, ``["t"]`` it ran past the per-call limit; a timed check appends the
  seconds the call took.

The parent believes none of it: :class:`Reader` checks every line, and :func:`describe` is
the one wording of an outcome that gave no value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["Reader", "describe"]


def describe(outcome: list[Any], import_seconds: float | None = None) -> str | None:
    """What went wrong with a call (or, given ``import_seconds``, with the import) that
    gave no value; None when it gave one."""
    kind = outcome[0]
    importing = import_seconds is not None
    if kind == "e":
        return f"does not import: {outcome[1]}" if importing else f"raised {outcome[1]}"
    if kind == "x":
        code = "" if outcome[1] == "None" else outcome[1]
        return "calls sys.exit() when imported" if importing else f"called sys.exit({code})"
    if kind == "i":
        return (
            'calls input() when imported (keep the game under `if __name__ == "__main__":`)'
            if importing
            else "called input()"
        )
    if kind == "t":
        if importing:
            return f"takes more than {import_seconds:g} s to import"
        return "did not return within the per-call time limit"
    return None


class Reader:
    """The parent's side: checks each line's type, range and phase, and records it on
    ``raw`` (a :class:`~tttlab.usercode.sandbox.RawRun`); ``cases`` is the number of calls
    of each check, in the order they run. A line the runner cannot have written raises a
    ``ValueError`` that says what is wrong with it."""

    def __init__(
        self, raw: Any, cases: dict[str, int], names: Iterable[str], timed: Iterable[str]
    ) -> None:
        self.raw = raw
        self.cases = cases
        self.order = list(cases)
        self.names = set(names)
        self.timed = set(timed)
        self.phase: str | None = None
        self.next_phase = 0

    def take(self, item: Any) -> None:
        raw = self.raw
        if isinstance(item, list):
            if self.phase is None:
                raise ValueError("a result outside any check")
            if len(raw.results[self.phase]) >= self.cases[self.phase]:
                raise ValueError(f"more results for {self.phase} than calls")
            raw.results[self.phase].append(self._outcome(item))
            return
        if not isinstance(item, dict):
            raise ValueError("neither a result nor a mark")
        keys = set(item)
        if raw.imported is None:
            if not keys <= {"import", "missing", "skipped", "stubbed", "printed", "first_print"}:
                raise ValueError("the first line is not the import's")
            imported = _need(item, "import", list)
            raw.imported = imported if imported == ["v"] else self._outcome(imported)
            raw.missing = _strings(item.get("missing", []))
            if not set(raw.missing) <= self.names:
                raise ValueError("a missing name that was not asked for")
            raw.skipped = _strings(item.get("skipped", []))
            raw.stubbed = _strings(item.get("stubbed", []))
            if len(raw.stubbed) > 20 or not all(_MODULE.fullmatch(m) for m in raw.stubbed):
                raise ValueError("stubbed modules that are no module names")
            self._printed(item)
            return
        if keys == {"constants"} and self.phase is None and raw.constants is None:
            raw.constants = str(_need(item, "constants", str))
        elif keys == {"phase"} and self.phase is None:
            name = _need(item, "phase", str)
            if name not in self.order[self.next_phase :]:
                raise ValueError(f"check {name[:40]!r} is not next")
            self.next_phase = self.order.index(name) + 1
            self.phase = name
            raw.results[name] = []
        elif "end" in keys and keys <= {"end", "printed", "first_print"}:
            if item["end"] != self.phase or self.phase is None:
                raise ValueError("the end of a check that is not running")
            raw.finished.add(self.phase)
            self.phase = None
            self._printed(item)
        else:
            raise ValueError("a mark out of place")

    def _printed(self, item: dict[str, Any]) -> None:
        printed = item.get("printed", 0)
        if type(printed) is not int or printed < self.raw.printed:
            raise ValueError("a print count that is not a count")
        self.raw.printed = printed
        first = item.get("first_print", "")
        if not isinstance(first, str):
            raise ValueError("a first print that is not text")
        self.raw.first_print = self.raw.first_print or first[:80]

    def _outcome(self, item: list[Any]) -> list[Any]:
        """``["v", value, ...]``, ``["e", text]``, ``["x", text]``, ``["i"]``, ``["t"]``,
        each with a time when the check is timed."""
        if not item or item[0] not in ("v", "e", "x", "i", "t"):
            raise ValueError("an outcome of no known kind")
        timed = self.phase in self.timed
        rest = item[1:]
        if timed:
            if not rest or not (rest[-1] is None or type(rest[-1]) in (int, float)):
                raise ValueError("a timed call without its time")
            rest = rest[:-1]
        kind = item[0]
        if kind == "v":
            extras = rest[1:]
            if not rest or extras not in ([], ["changed"]):
                raise ValueError("a value in the wrong form")
        elif kind in ("e", "x"):
            if len(rest) != 1 or not isinstance(rest[0], str):
                raise ValueError("an error without its text")
        elif rest:
            raise ValueError("an outcome with more than it carries")
        return item


def _need(item: dict[str, Any], key: str, kind: type) -> Any:
    value = item.get(key)
    if not isinstance(value, kind):
        raise ValueError(f"{key!r} of the wrong type")
    return value


#: A module's top-level name, as the runner reports one it stood a stub in for.
_MODULE = re.compile(r"[A-Za-z_][A-Za-z_0-9]{0,99}")


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("a list of names that is not one")
    return [v[:200] for v in value]
