"""CS50 AI's tic-tac-toe in the box: the functions over a list-of-lists board, called with
the student's own ``X``, ``O`` and ``EMPTY``."""

from __future__ import annotations

import contextlib
from typing import Any

from .base import Child, Run, garbage_of, pair, whole

__all__ = ["CS50Child"]


class CS50Child(Child):
    """The exercise's functions over a list-of-lists board."""

    def prepare(self) -> dict[str, Any] | None:
        ns = self.ns
        self.x, self.o, self.empty = ns.X, ns.O, ns.EMPTY
        self.cell = {"X": self.x, "O": self.o, ".": self.empty}
        return None

    def board(self, text: str) -> list[list[Any]]:
        return [[self.cell[c] for c in text[r * 3 : r * 3 + 3]] for r in range(3)]

    def symbol(self, value: Any) -> str | None:
        for name, constant in (("X", self.x), ("O", self.o), (".", self.empty)):
            try:
                if value is constant or (type(value) is type(constant) and value == constant):
                    return name
            except BaseException:
                return None
        return None

    def encode_board(self, value: Any) -> Any:
        if not isinstance(value, (list, tuple)) or len(value) != 3:
            return garbage_of(value)
        out = []
        for row in value:
            if not isinstance(row, (list, tuple)) or len(row) != 3:
                return garbage_of(value)
            for cell in row:
                name = self.symbol(cell)
                if name is None:
                    return garbage_of(value)
                out.append(name)
        return "".join(out)

    def encode(self, function: str, value: Any) -> Any:
        if function in ("player", "winner"):
            name = self.symbol(value)
            return name if name is not None else garbage_of(value)
        if function == "terminal":
            return value if type(value) is bool else garbage_of(value)
        if function == "utility":
            number = whole(value)
            return number if number in (-1, 0, 1) else garbage_of(value)
        if function == "actions":
            if isinstance(value, (str, bytes)):
                return garbage_of(value)
            cells = [pair(a) for a in list(value)]
            if any(c is None for c in cells):
                return garbage_of(value)
            return sorted(c for c in cells if c is not None)
        if function == "minimax":
            if value is None:
                return None
            cell = pair(value)
            return cell if cell is not None else garbage_of(value)
        return self.encode_board(value)  # result, initial_state

    def call(self, function: str, case: Any, run: Run) -> list[Any]:
        target = getattr(self.ns, function)
        if function == "initial_state":
            outcome = run(target)
        elif function == "result":
            board = self.board(case[0])
            before = [list(row) for row in board]  # cells are the student's constants
            outcome = run(target, board, tuple(case[1]))
            outcome = self.encoded(outcome, lambda value: self.encode(function, value))
            changed = True
            with contextlib.suppress(BaseException):  # the student's constants' __eq__
                changed = board != before
            if changed and outcome[0] == "v":
                outcome.append("changed")
            return outcome
        else:
            outcome = run(target, self.board(case))
        return self.encoded(outcome, lambda value: self.encode(function, value))
