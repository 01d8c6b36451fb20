"""The MDP text's tables in the box (seed 004): the module has run (it builds ``P``, ``R``
and its state tables at its top level), and each call reads them, as they are, in tttlab's
terms. Nothing here judges: the grader maps the student's own state numbering through the
table that the student wrote, and knows what every entry should be.

- ``P`` and ``R``, one call per state ``s``: the row of ``state_id_lkt`` (type, winner or
  next player, board id), the state ``id_state_lkt`` gives for that board (when it is
  defined and says), the nonzero entries of ``P[s, :, a]`` for each action (the first
  :data:`LISTED`, their number and their sum), the rows of the states they lead to, and for
  ``R`` the row ``R[s]``. One more call for ``P``: the table's and the arrays' sizes.
- ``iteration``: ``value_iteration(P, R, gamma)`` or ``policy_iteration(P, R, gamma)``
  (copies of P and R; "absent" when the module does not define it, "neither" when it
  defines neither), and what it returned: each vector of numbers in it (values, a
  policy: whichever it is, the grader tells), with the whole state table and the largest
  entry of R (which of the text's rewards it holds).

Entries of any numeric type (numpy's float128 too) are read as floats.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from .base import Child, Run, number, short, whole

__all__ = ["MDPTextChild"]

#: The actions: the cells of the state's board.
ACTIONS = 9
#: Entries of one ``P[s, :, a]`` written out (the rest are counted and summed).
LISTED = 16
#: The most states read (a bigger table is no answer).
MOST = 100_000
#: The most vectors of numbers read from what an iteration returned.
PARTS = 4
#: The largest integer read from a table (a bigger one is no id or state).
BIGGEST = 2**53


def _plain(block: Any) -> Any:
    """A numpy array as lists (one call, fast); anything else as it is."""
    tolist = getattr(block, "tolist", None)
    return tolist() if callable(tolist) else block


class MDPTextChild(Child):
    """The tables that the module's top level built."""

    def call(self, function: str, case: Any, run: Run) -> list[Any]:
        if function == "iteration":
            return run(self.iterate, str(case[0]), float(case[1]))
        if case == "count":
            return run(self.count)
        return run(self.state, int(case), function == "R")

    def row(self, table: Any, s: int) -> list[int] | None:
        """``table[s][:3]`` as three integers (of at most 53 bits), or None."""
        entry = table[s]
        found = []
        for k in range(3):
            value = whole(entry[k])
            if value is None or abs(value) > BIGGEST:
                return None
            found.append(value)
        return found

    def dims(self, array: Any, depth: int) -> list[int]:
        """The lengths along the first ``depth`` axes, as far as they go."""
        found = []
        for _ in range(depth):
            try:
                found.append(len(array))
                array = array[0]
            except Exception:
                break
        return found

    def count(self) -> list[Any]:
        table = self.ns.state_id_lkt
        rows = len(table)
        kinds = [0, 0]
        for s in range(min(rows, MOST)):
            row = self.row(table, s)
            if row is not None and row[0] in (0, 1):
                kinds[row[0]] += 1
        return [rows, kinds[0], kinds[1], self.dims(self.ns.P, 3), self.dims(self.ns.R, 2)]

    def back(self, board: int) -> int | None:
        """The state ``id_state_lkt`` gives for a board id (its last column), or None."""
        try:
            found = whole(_plain(self.ns.id_state_lkt[board])[-1])
        except Exception:
            return None
        return found if found is not None and abs(found) <= BIGGEST else None

    def state(self, s: int, with_rewards: bool) -> list[Any]:
        ns = self.ns
        table = ns.state_id_lkt
        if not 0 <= s < len(table):
            return ["g", f"state_id_lkt has no row {s} ({len(table)} rows)"]
        row = self.row(table, s)
        if row is None:
            return ["g", f"state_id_lkt[{s}] = {short(table[s])}"]
        back = self.back(row[2]) if row[0] == 0 and row[2] >= 0 else None
        block = _plain(ns.P[s])
        if len(block) > MOST:
            return ["g", f"P[{s}] has {len(block)} rows"]
        entries: list[list[list[Any]]] = [[] for _ in range(ACTIONS)]
        counts = [0] * ACTIONS
        values: list[list[float]] = [[] for _ in range(ACTIONS)]
        for t in range(len(block)):
            line = _plain(block[t])
            if len(line) != ACTIONS:
                return ["g", f"P[{s}, {t}] has {len(line)} actions, not {ACTIONS}"]
            if not any(line):
                continue
            for a in range(ACTIONS):
                if line[a]:  # nonzero (nan is too)
                    p = float(line[a])
                    if not math.isfinite(p):
                        return ["g", f"P[{s}, {t}, {a}] = {short(line[a])}"]
                    counts[a] += 1
                    values[a].append(p)
                    if len(entries[a]) < LISTED:
                        entries[a].append([t, p])
        targets = sorted({t for listed in entries for t, _ in listed})
        rows = len(table)
        found = [[t, self.row(table, t) if t < rows else None] for t in targets]
        actions = [[entries[a], counts[a], math.fsum(values[a])] for a in range(ACTIONS)]
        answer: list[Any] = [row, back, actions, found]
        if with_rewards:
            line = list(_plain(ns.R[s]))
            if len(line) != ACTIONS:
                return ["g", f"R[{s}] has {len(line)} entries, not {ACTIONS}"]
            rewards = [float(v) for v in line]
            bad = [a for a, v in enumerate(rewards) if not math.isfinite(v)]
            if bad:
                return ["g", f"R[{s}, {bad[0]}] = {rewards[bad[0]]}"]
            answer.append(rewards)
        return answer

    def iterate(self, name: str, gamma: float) -> Any:
        ns = self.ns
        try:
            function = getattr(ns, name)
        except AttributeError:
            other = "policy_iteration" if name == "value_iteration" else "value_iteration"
            return "absent" if hasattr(ns, other) else "neither"
        table = ns.state_id_lkt
        rows = [self.row(table, s) for s in range(min(len(table), MOST))]
        top = self.largest(ns.R)
        result = function(copy.deepcopy(ns.P), copy.deepcopy(ns.R), gamma)
        return [rows, self.parts(result), top]

    @staticmethod
    def largest(rewards: Any) -> float | None:
        """The largest finite entry of R (which of the text's rewards it holds), or None."""
        try:
            found = [float(v) for line in _plain(rewards) for v in _plain(line)]
        except Exception:
            return None
        finite = [v for v in found if math.isfinite(v)]
        return max(finite) if finite else None

    def parts(self, result: Any) -> list[list[Any]]:
        """Each vector of numbers in ``result`` (a vector or a ``{state: number}`` dict, a
        tuple or list of them, a dict or an object with ``V`` and ``policy``): [all
        integers?, the numbers]."""
        if isinstance(result, dict) and ("V" in result or "policy" in result):
            candidates = [result[k] for k in ("V", "policy") if k in result]
        elif isinstance(result, dict):  # one vector as {state: number}
            candidates = [result]
        elif hasattr(result, "V") or hasattr(result, "policy"):
            candidates = [getattr(result, k) for k in ("V", "policy") if hasattr(result, k)]
        elif isinstance(result, (tuple, list)) and result and number(result[0]) is None:
            candidates = list(result)[:PARTS]
        else:
            candidates = [result]
        found = []
        for candidate in candidates:
            vector = self.vector(candidate)
            if vector is not None:
                found.append(vector)
        return found

    @staticmethod
    def vector(candidate: Any) -> list[Any] | None:
        try:
            if isinstance(candidate, dict):  # {state: number}, the states 0 to n - 1
                keys = sorted(candidate)
                if keys != list(range(len(keys))):
                    return None
                items = [candidate[k] for k in keys]
            else:
                items = list(_plain(candidate))
        except Exception:
            return None
        if len(items) > MOST:
            return None
        numbers = [number(v) for v in items]
        if any(v is None for v in numbers):
            return None
        integers = all(type(v) is not bool and hasattr(type(v), "__index__") for v in items)
        return [integers, numbers]
