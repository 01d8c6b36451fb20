"""The value table a TD agent is given, in the container its own code makes, and what its
update changed in it (standard library only).

The table is :func:`~.base.drawn` from the case's seed, as the grader draws it. The course
keeps it in a numpy array of float64 (``setV``); a student's agent may keep it in a dict
(``self.V = {}``, or ``self.V.get(s, 0.5)`` read), a list, or an array of float32, and is
given it in that container. Reading it back, an entry counts as changed when it differs
from the drawn value held at the table's own precision (a float32 table holds each drawn
value rounded to float32), and that precision is said, so that the grader compares at it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from .base import drawn, number, short, whole
from .standin import SIZE, numpy_here

__all__ = ["LOWER", "Tables"]

#: The precisions below float64 a table may be kept at, lowest first.
LOWER = ("float16", "float32")


def _lower(value: Any) -> str | None:
    """The name of the precision of a numpy float scalar or array below float64, or None."""
    try:
        dtype = value.dtype
        name = str(dtype.name)
    except BaseException:
        return None
    return name if name in LOWER else None


def _floats(np: Any, value: Any) -> bool:
    """Whether ``value`` is a numpy array of floats with an entry for every state."""
    try:
        return bool(
            isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size == SIZE
        )
    except BaseException:
        return False


def _lowest(found: set[str]) -> str:
    return next((p for p in LOWER if p in found), "")


class Tables:
    """The tables of one worker, each drawn once (the last 8 kept); ``numpy`` gives numpy
    where it works here, else None."""

    def __init__(self, numpy: Callable[[], Any] = numpy_here) -> None:
        self.numpy = numpy
        self._drawn: dict[int, tuple[list[float], Any]] = {}

    @property
    def np(self) -> Any:
        return self.numpy()

    def base(self, seed: int) -> tuple[list[float], Any]:
        """The table drawn from ``seed``, as a list and as a float64 array (None without
        numpy)."""
        if seed not in self._drawn:
            if len(self._drawn) >= 8:
                self._drawn.clear()
            values = drawn(seed, SIZE)
            np = self.np
            self._drawn[seed] = (values, np.array(values, dtype=np.float64) if np else None)
        return self._drawn[seed]

    def made(self, seed: int, overrides: Any = (), like: Any = None, mapping: bool = False) -> Any:
        """The table drawn from ``seed`` with ``overrides`` set over it: in a container like
        ``like`` (a dict or a subclass of one, a list, a numpy array of floats) when given,
        else a dict when the agent reads its table as a mapping, else the course's float64
        array (a list without numpy)."""
        values, array = self.base(seed)
        np = self.np
        table: Any
        if isinstance(like, dict):
            try:
                table = copy.copy(like)  # a defaultdict keeps its default
                table.clear()
                table.update(enumerate(values))
            except BaseException:
                table = dict(enumerate(values))
        elif isinstance(like, list) or (np is None and not mapping):
            table = list(values)
        elif mapping and like is None:
            table = dict(enumerate(values))
        elif _floats(np, like):  # its own precision and shape (a float32 column, say)
            table = np.array(values, dtype=like.dtype).reshape(like.shape)
        else:
            table = array.copy()
        for s, v in overrides or ():
            table[s] = v
        return table

    def kind(self, table: Any) -> str:
        """The container of ``table`` when it is not the course's array ("" when it is)."""
        np = self.np
        if np is not None and isinstance(table, np.ndarray):
            return ""
        return type(table).__name__

    @staticmethod
    def precision(table: Any) -> str:
        """The precision of ``table`` below float64 ("float32"), or "" (its first entry's,
        for a dict or a list)."""
        found = _lower(table)
        if found is None and isinstance(table, (dict, list)) and table:
            try:
                found = _lower(table[0] if isinstance(table, list) else next(iter(table.values())))
            except BaseException:
                found = None
        return found or ""

    def changes(self, table: Any, seed: int) -> tuple[list[Any], str]:
        """The entries of ``table`` that differ from those drawn from ``seed`` at its own
        precision (NaN differs), or ``["g", why]`` when the table cannot be read; and that
        precision ("float32", "float16"; "" for float64)."""
        values, array = self.base(seed)
        np = self.np
        try:
            if np is not None and isinstance(table, np.ndarray) and table.size == SIZE:
                flat = table.reshape(SIZE)
                if flat.dtype.kind == "f":
                    unchanged = flat == array.astype(flat.dtype)
                    after = flat.astype(np.float64)
                    rows = np.flatnonzero(~unchanged)
                    found = [[int(s), float(after[s])] for s in rows]
                    return found, _lower(flat) or ""
            if isinstance(table, dict):
                return self._mapping(dict(table), values)
            if len(table) != SIZE:
                return ["g", f"V has {len(table)} entries, not {SIZE}"], ""
            return self._entries([(s, table[s]) for s in range(SIZE)], values)
        except BaseException as error:
            return ["g", f"V cannot be read: {type(error).__name__}"], ""

    def _mapping(self, table: dict[Any, Any], values: list[float]) -> tuple[list[Any], str]:
        """A dict table: every state's entry, and any key that is no state."""
        items = []
        for s in range(SIZE):
            if s not in table:
                return ["g", f"V has no entry for state {s}"], ""
            items.append((s, table.pop(s)))
        for key, value in list(table.items())[:8]:
            state = whole(key)
            if state is None:
                return ["g", f"V has a key that is no state: {short(key)}"], ""
            items.append((state, value))
        return self._entries(items, values)

    @staticmethod
    def _entries(items: list[tuple[int, Any]], values: list[float]) -> tuple[list[Any], str]:
        found, precisions = [], set()
        for s, entry in items:
            value = number(entry)
            if value is None:
                return ["g", f"V[{s}] = {short(entry)}"], ""
            lower = _lower(entry)
            if 0 <= s < SIZE and lower is not None:
                precisions.add(lower)
                if type(entry)(values[s]) == entry:  # the drawn value at its precision
                    continue
            elif 0 <= s < SIZE and value == values[s]:  # NaN differs too
                continue
            found.append([s, value])
        return found, _lowest(precisions)
