"""The grader's reading of the results channel that the box's caller writes (the protocol is
declared once, in :mod:`tttlab.usercode.boxside.schema`).

Every line on the channel is the caller's own, not the student's, yet nothing on it is taken
on trust: :class:`Reader` checks each line's type, range and phase. A line the caller cannot
have written is the grader's failure (``error``), never a verdict on the student.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from tttlab.usercode.boxside.schema import (
    IMPORT_KEYS,
    MODULE,
    NOTE_CHARS,
    NOTES,
    OUTCOMES,
    STUBS,
    cut,
    describe,
    outcome_problem,
    visible,
)

__all__ = ["Reader", "describe"]


class Reader:
    """Checks each line and records it on ``raw`` (a :class:`~tttlab.usercode.sandbox.RawRun`);
    ``cases`` is the number of calls of each check, in the order they run. A line the caller
    cannot have written raises a ``ValueError`` that says what is wrong with it."""

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
        if raw.done:
            raise ValueError("a line after the last")
        if raw.broken is not None:  # the grader failed: the rest is not read
            raw.done = item == {"done": True}
            return
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
        if keys == {"done"} and item["done"] is True and self.phase is None:
            raw.done = True
        elif keys == {"broken"}:
            raw.broken = visible(cut(str(_need(item, "broken", str)), 200))
        elif keys == {"started"} and item["started"] is True and not raw.started:
            raw.started = True
        elif raw.imported is None:
            self._imported(item)
        elif keys == {"constants"} and self.phase is None and raw.constants is None:
            raw.constants = visible(str(_need(item, "constants", str)))
        elif keys == {"stopped"} and self.phase is None:
            raw.stopped = visible(cut(str(_need(item, "stopped", str)), 200))
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

    def _imported(self, item: dict[str, Any]) -> None:
        raw = self.raw
        if not set(item) <= set(IMPORT_KEYS):
            raise ValueError("the first line is not the import's")
        imported = _need(item, "import", list)
        if imported != ["v"] and outcome_problem(imported, ("e", "x", "i", "t", "k", "b")):
            raise ValueError("an import's outcome of no known kind")
        raw.imported = _visibly(imported)
        raw.missing = _strings(item.get("missing", []))
        if not set(raw.missing) <= self.names:
            raise ValueError("a missing name that was not asked for")
        raw.skipped = _strings(item.get("skipped", []), words=True)
        raw.stubbed = _strings(item.get("stubbed", []))
        if len(raw.stubbed) > STUBS or not all(MODULE.fullmatch(m) for m in raw.stubbed):
            raise ValueError("stubbed modules that are no module names")
        raw.notes = _strings(item.get("notes", []), NOTE_CHARS, words=True)
        if len(raw.notes) > NOTES:
            raise ValueError("more notes than a shape gives")
        raw.making = _strings(item.get("making", []), NOTE_CHARS, words=True)
        if len(raw.making) not in (0, 3):
            raise ValueError("a making that is not a line and two symbols")
        if "problem" in item:
            raw.problem = visible(cut(str(_need(item, "problem", str)), NOTE_CHARS))
        self._printed(item)

    def _printed(self, item: dict[str, Any]) -> None:
        printed = item.get("printed", 0)
        if type(printed) is not int or printed < self.raw.printed:
            raise ValueError("a print count that is not a count")
        self.raw.printed = printed
        first = item.get("first_print", "")
        if not isinstance(first, str):
            raise ValueError("a first print that is not text")
        self.raw.first_print = self.raw.first_print or visible(cut(first, 80))

    def _outcome(self, item: list[Any]) -> list[Any]:
        """An OUTCOME, with a time when the check is timed."""
        rest = item
        if self.phase in self.timed:
            last: Any = item[-1] if len(item) > 1 else "none"
            if not (last is None or (type(last) in (int, float) and math.isfinite(last))):
                raise ValueError("a timed call without its time")
            rest = item[:-1]
        problem = outcome_problem(rest)
        if problem is not None:
            raise ValueError(problem)
        return _visibly(item)


def _need(item: dict[str, Any], key: str, kind: type) -> Any:
    value = item.get(key)
    if not isinstance(value, kind):
        raise ValueError(f"{key!r} of the wrong type")
    return value


def _strings(value: Any, chars: int = 200, words: bool = False) -> list[str]:
    """The strings of ``value``, each in ``chars`` (texts, ``words``, cut at a word)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("a list of names that is not one")
    return [visible(cut(v, chars) if words else v[:chars]) for v in value]


def _visibly(outcome: list[Any]) -> list[Any]:
    """An outcome whose text (what the student's code raised or said) is made visible."""
    if outcome[0] != "v" and OUTCOMES[outcome[0]]:
        return [outcome[0], visible(outcome[1]), *outcome[2:]]
    return outcome
