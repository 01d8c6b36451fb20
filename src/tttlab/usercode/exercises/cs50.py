"""CS50 AI's tic-tac-toe (``X``, ``O``, ``EMPTY``, ``initial_state``, ``player``, ``actions``,
``result``, ``winner``, ``terminal``, ``utility``, ``minimax``): functions over a list-of-lists
board: what the grader checks (the box's side: :mod:`tttlab.usercode.boxside.shapes.cs50`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from . import base
from .base import BOARD, CELL, SYMBOL, Case, Exercise, Form

if TYPE_CHECKING:
    from tttlab.usercode.cases import ExerciseTruth

__all__ = ["CS50", "OUT_OF_RANGE"]

#: Invalid actions tried on every decision board besides its occupied cells. Python lists
#: accept negative indices, which makes the last three a classic bug.
OUT_OF_RANGE = ((3, 0), (0, 3), (-1, 0), (0, -1), (-1, -1))


def _symbol(s: str) -> str:
    return "None" if s == "." else s


def _actions(cells: list[int] | tuple[int, ...]) -> str:
    return "{" + ", ".join(str(divmod(c, 3)) for c in cells) + "}" if cells else "set()"


class CS50(Exercise):
    """CS50 AI's tic-tac-toe: functions over a list-of-lists board."""

    key = "cs50"
    functions = (
        "initial_state",
        "winner",
        "terminal",
        "utility",
        "player",
        "actions",
        "result",
        "minimax",
    )
    names = ("X", "O", "EMPTY", *functions)
    needs: ClassVar[dict[str, tuple[str, ...]]] = {f: ("X", "O", "EMPTY", f) for f in functions}
    arity: ClassVar[dict[str, int]] = {
        "initial_state": 0,
        "result": 2,
        **{f: 1 for f in ("player", "actions", "winner", "terminal", "utility", "minimax")},
    }
    unlimited = ("minimax",)
    timed = ("minimax",)
    load = "import"
    whole = ("initial_state",)

    def entry_files(self, folder: Path) -> tuple[list[Path], str]:
        """``tictactoe.py`` when it is there, else every .py file (by name) that defines
        ``minimax``."""
        preferred = folder / "tictactoe.py"
        if preferred.is_file():
            return [preferred], ""
        found = []
        for path in sorted(folder.glob("*.py")):
            try:
                if "def minimax(" in path.read_text(errors="replace"):
                    found.append(path)
            except OSError:
                continue
        return base.one_entry(
            found,
            "no .py file in it defines minimax()",
            "{n} files define minimax() ({listed}) and none is tictactoe.py",
        )

    forms: ClassVar[dict[str, Form]] = {
        "initial_state": BOARD,
        "winner": SYMBOL,
        "terminal": base.kind(bool),
        "utility": base.one_of(-1, 0, 1),
        "player": SYMBOL,
        "actions": base.listing(CELL),
        "result": BOARD,
        "minimax": base.either(base.one_of(None), CELL),
    }

    def cases(self, truth: ExerciseTruth) -> dict[str, list[Case]]:
        def case(i: int, arg: Any = None, invalid: bool = False) -> Case:
            return Case(truth.boards[i], i, arg, invalid)

        everything = range(truth.size)
        decisions = truth.decisions()
        result = [case(i, divmod(m, 3)) for i in decisions for m in truth.legal[i]]
        for i in decisions:
            occupied = [m for m in range(9) if truth.boards[i][m] != "."]
            result += [case(i, divmod(m, 3), invalid=True) for m in occupied]
            result += [case(i, a, invalid=True) for a in OUT_OF_RANGE]
        # minimax costs about the size of the game tree below a board: the fullest first.
        minimax = [case(i) for i in truth.terminals()]
        minimax += [case(i) for i in sorted(decisions, key=lambda i: -truth.ply[i])]
        return {
            "initial_state": [case(0)],
            "winner": [case(i) for i in everything],
            "terminal": [case(i) for i in everything],
            "utility": [case(i) for i in truth.terminals()],
            "player": [case(i) for i in decisions],
            "actions": [case(i) for i in decisions],
            "result": result,
            "minimax": minimax,
        }

    def payload(self, function: str, case: Case) -> Any:
        if function == "result":
            return [case.board, list(case.arg)]
        return case.board

    def right(self, function: str, case: Case, outcome: list[Any], truth: ExerciseTruth) -> bool:
        if function == "result" and case.invalid:
            return bool(outcome[0] == "e")
        if outcome[0] != "v" or "changed" in outcome:
            return False
        value = outcome[1]
        i = case.rank
        if function == "initial_state":
            return bool(value == "." * 9)
        if function == "winner":
            return bool(value == truth.winner[i])
        if function == "terminal":
            return bool(value is truth.terminal[i])
        if function == "utility":
            return bool(value == truth.utility[i])
        if function == "player":
            return bool(value == truth.to_move[i])
        if function == "actions":
            return bool(value == list(truth.legal[i]))
        if function == "result":
            return bool(value == truth.child[i][case.arg[0] * 3 + case.arg[1]])
        if truth.terminal[i]:
            return value is None
        return isinstance(value, int) and value in truth.optimal[i]

    def expected(self, function: str, case: Case, truth: ExerciseTruth) -> str:
        i = case.rank
        if function == "initial_state":
            return base.literal("." * 9)
        if function == "player":
            return truth.to_move[i]
        if function == "winner":
            return _symbol(truth.winner[i])
        if function == "terminal":
            return str(truth.terminal[i])
        if function == "utility":
            return str(truth.utility[i])
        if function == "actions":
            return _actions(truth.legal[i])
        if function == "result":
            if case.invalid:
                return "an exception"
            child = truth.child[i][case.arg[0] * 3 + case.arg[1]]
            return base.literal(child) + ", input unchanged"
        if truth.terminal[i]:
            return "None (the game is over)"
        moves = ", ".join(str(divmod(m, 3)) for m in sorted(truth.optimal[i]))
        value = {1: "X wins", 0: "a draw", -1: "O wins"}[truth.value[i]]
        return f"one of {moves} (keeps the game value: {value})"

    def answer(self, function: str) -> str:
        return {
            "terminal": "bool",
            "actions": "set of (i, j) actions",
            "minimax": "(i, j) action",
            "result": "board",
            "initial_state": "board",
        }.get(function, function)

    def shown(self, function: str, outcome: list[Any], case: Case, truth: ExerciseTruth) -> str:
        value = outcome[1]
        if function in ("player", "winner"):
            return _symbol(value)
        if function == "actions":
            return _actions(value)
        if function == "minimax":
            return "None" if value is None else str(divmod(value, 3))
        if function in ("result", "initial_state"):
            shown = base.literal(value)
            return (
                shown if "changed" not in outcome else f"{shown}, and the input board was modified"
            )
        return str(value)

    def call(self, function: str, case: Case) -> str:
        if function == "initial_state":
            return "initial_state()"
        if function == "result":
            return f"result(board, {case.arg})"
        return f"{function}(board)"

    def repro(self, function: str, case: Case, expected: str, got: str) -> str:
        if function == "initial_state":
            args = ""
        else:
            args = base.literal(case.board) + (f", {case.arg}" if function == "result" else "")
        wanted = (
            "should raise an exception"
            if expected == "an exception"
            else f"should return {expected}"
        )
        return f"{function}({args}) {wanted}, got {got}"
