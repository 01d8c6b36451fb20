"""The MDP text's tables in the box (seed 004): the module has run (it builds ``P``, ``R``
and its state tables at its top level), and each call reads them, as they are, in tttlab's
terms. Nothing here judges: the grader maps the student's own state numbering through the
table that the student wrote, and knows what every entry should be.

- ``P`` and ``R``, one call per state ``s``: the row of ``state_id_lkt`` (type, winner or
  next player, board id), the state ``id_state_lkt`` gives for that board (when it is
  defined and says), the nonzero entries of ``P[s, :, a]`` for each action (the first
  :data:`LISTED`, their number and their sum), the rows of the states they lead to, and for
  ``R`` the row ``R[s]``. One more call for ``P``: the table's and the arrays' sizes.
- ``iteration``: ``value_iteration`` or ``policy_iteration``, called as its signature asks
  (:mod:`.mdp_call`: copies of P and R, the discount, and what else it wants; "absent"
  when the module does not define it, "neither" when it defines neither, ``["unfilled",
  signature, parameter]`` when a parameter is none the box can fill): the whole state
  table, each vector of numbers in what it returned (values, a policy: whichever it is,
  the grader tells), every row of R (its rewards and its soft constraint), and the call
  (its signature, whether the discount was given, what each other parameter got, what
  held the vectors).

Entries of any numeric type (numpy's float128 too) are read as floats.
"""

from __future__ import annotations

import math
from typing import Any

from .base import Child, Run, number, short, whole
from .mdp_call import SWEEPS, TOLERANCE, arguments, cells, fresh, parts, plain, zeros

__all__ = ["MDPTextChild"]

#: The actions: the cells of the state's board.
ACTIONS = 9
#: Entries of one ``P[s, :, a]`` written out (the rest are counted and summed).
LISTED = 16
#: The most states read (a bigger table is no answer).
MOST = 100_000
#: The largest integer read from a table (a bigger one is no id or state).
BIGGEST = 2**53


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
            found = whole(plain(self.ns.id_state_lkt[board])[-1])
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
        block = plain(ns.P[s])
        if len(block) > MOST:
            return ["g", f"P[{s}] has {len(block)} rows"]
        entries: list[list[list[Any]]] = [[] for _ in range(ACTIONS)]
        counts = [0] * ACTIONS
        values: list[list[float]] = [[] for _ in range(ACTIONS)]
        for t in range(len(block)):
            line = plain(block[t])
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
            line = list(plain(ns.R[s]))
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
        table, P, R = ns.state_id_lkt, ns.P, ns.R
        rows = [self.row(table, s) for s in range(min(len(table), MOST))]
        rewards = [self.rewards(R, s) for s in range(len(rows))]
        given = {
            "P": lambda: fresh(P),
            "R": lambda: fresh(R),
            "gamma": lambda: gamma,
            "values": lambda: zeros(P, len(rows)),
            "policy": lambda: cells(P, [feasible(row) for row in rows]),
            "tol": lambda: TOLERANCE,
            "sweeps": lambda: SWEEPS,
            "states": lambda: len(rows),
            "actions": lambda: ACTIONS,
        }
        call = arguments(function, name, given)
        if call.unfilled:
            return ["unfilled", call.signature, call.unfilled]
        found, form = parts(function(*call.args, **call.kwargs))
        return [rows, found, rewards, [call.signature, call.discounted, call.filled, form]]

    @staticmethod
    def rewards(R: Any, s: int) -> list[float | None] | None:
        """``R[s]`` as nine numbers (None where one is not finite), or None."""
        try:
            line = list(plain(R[s]))
        except Exception:
            return None
        if len(line) != ACTIONS:
            return None
        found = [number(v) for v in line]
        return [v if v is not None and math.isfinite(v) else None for v in found]


def feasible(row: list[int] | None) -> int:
    """An action that a state can take: the first empty cell of its board (0 for a
    terminal state, or a row that is no board)."""
    if row is None or row[0] != 0 or not 0 <= row[2] < 3**9:
        return 0
    return next((a for a in range(ACTIONS) if (row[2] // 3 ** (8 - a)) % 3 == 0), 0)
