"""What ``ttt check`` checks for each exercise shape: the calls to make (cheap ones
first), what is right, and how to word a counterexample.

Shapes (see :mod:`tttlab.usercode.shapes` for how the child calls them): ``cs50`` here;
``course`` and ``board`` in :mod:`tttlab.usercode.course`. The truth is tttlab's rules
and solver (:mod:`tttlab.usercode.cases`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tttlab.usercode.cases import OUT_OF_RANGE, ExerciseTruth
from tttlab.usercode.report import CheckReport

__all__ = ["CS50", "Case", "Exercise", "Plan", "grid", "literal"]


@dataclass(frozen=True)
class Case:
    """One planned call: the board (``"X.O......"``), its rank in report order (the
    earliest in the game first), and the function's other argument, if any."""

    board: str
    rank: int
    arg: Any = None
    invalid: bool = False


@dataclass
class Plan:
    """The calls per function, in the order they run."""

    cases: dict[str, list[Case]] = field(default_factory=dict)
    only: tuple[str, ...] = ()


def grid(board: str) -> str:
    """``"X.O.X...O"`` → ``"X.O/.X./..O"``."""
    return "/".join(board[r * 3 : r * 3 + 3] for r in range(3))


def literal(board: str) -> str:
    """The board as the exercise writes it: ``[[X, EMPTY, O], ...]``."""
    name = {"X": "X", "O": "O", ".": "EMPTY"}
    rows = ("[" + ", ".join(name[c] for c in board[r * 3 : r * 3 + 3]) + "]" for r in range(3))
    return "[" + ", ".join(rows) + "]"


def failure(outcome: list[Any]) -> str | None:
    """What went wrong with a call that gave no value, or None."""
    kind = outcome[0]
    if kind == "e":
        return f"raised {outcome[1]}"
    if kind == "x":
        return f"called sys.exit({'' if outcome[1] == 'None' else outcome[1]})"
    if kind == "i":
        return "called input()"
    if kind == "t":
        return "did not return within the per-call time limit"
    return None


Form = Callable[[Any], bool]


def kind(*types: type) -> Form:
    """A value of exactly one of ``types`` (JSON's: bool is not an int here)."""
    return lambda value: type(value) in types


def one_of(*choices: Any) -> Form:
    return lambda value: any(type(value) is type(c) and value == c for c in choices)


def listing(form: Form) -> Form:
    return lambda value: type(value) is list and all(form(v) for v in value)


def row(*forms: Form) -> Form:
    return lambda value: (
        type(value) is list
        and len(value) == len(forms)
        and all(f(v) for f, v in zip(forms, value, strict=True))
    )


def either(*forms: Form) -> Form:
    return lambda value: any(f(value) for f in forms)


#: A value that came back but is no answer at all: ``["g", its repr]``.
GARBAGE = row(one_of("g"), kind(str))
SYMBOL = one_of("X", "O", ".")
CELL: Form = lambda value: type(value) is int and 0 <= value < 9  # noqa: E731
BOARD: Form = lambda value: type(value) is str and len(value) == 9 and set(value) <= set("XO.")  # noqa: E731


def garbage(value: Any) -> str | None:
    if isinstance(value, list) and value[:1] == ["g"]:
        return str(value[1])
    return None


class Exercise:
    """One shape, parent side."""

    key: ClassVar[str]
    #: Names the module must define ("a|b": either).
    names: ClassVar[tuple[str, ...]]
    #: The checks, in the order they run and are reported.
    functions: ClassVar[tuple[str, ...]]
    #: The names each check calls.
    needs: ClassVar[dict[str, tuple[str, ...]]]
    #: Checks without the per-call limit (only the total one), and those timed per call.
    unlimited: ClassVar[tuple[str, ...]] = ()
    timed: ClassVar[tuple[str, ...]] = ()
    #: "import" runs the module; "definitions" loads what it defines without its main code.
    load: ClassVar[str] = "definitions"

    def plan(self, truth: ExerciseTruth, only: tuple[str, ...]) -> Plan:
        cases = self.cases(truth)
        return Plan({f: c for f, c in cases.items() if not only or f in only}, only)

    def cases(self, truth: ExerciseTruth) -> dict[str, list[Case]]:
        raise NotImplementedError

    def payload(self, function: str, case: Case) -> Any:
        """What the child gets for a case."""
        return case.board if case.arg is None else [case.board, case.arg]

    #: The form of each check's value as an honest runner writes it (besides garbage).
    forms: ClassVar[dict[str, Form]]

    def well_formed(self, function: str, value: Any) -> bool:
        """Whether ``value`` has the form the runner writes for ``function``: anything
        else was written by someone else, and is never graded."""
        return bool(self.forms[function](value) or GARBAGE(value))

    def right(self, function: str, case: Case, outcome: list[Any], truth: ExerciseTruth) -> bool:
        raise NotImplementedError

    def expected(self, function: str, case: Case, truth: ExerciseTruth) -> str:
        raise NotImplementedError

    def got(self, function: str, outcome: list[Any], case: Case) -> str:
        raise NotImplementedError

    def call(self, function: str, case: Case) -> str:
        """The call, with ``board`` for the board."""
        raise NotImplementedError

    def repro(self, function: str, case: Case, expected: str, got: str) -> str:
        raise NotImplementedError

    def counted(self, function: str, case: Case) -> bool:
        """Whether a case counts in ``checked`` (invalid actions are counted apart)."""
        return not case.invalid

    def hints(self, sources: dict[str, str], report: CheckReport) -> list[str]:
        """One line for each known mistake found in the source (the seeds' own bugs) that
        explains a failure in ``report``."""
        return []


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
    unlimited = ("minimax",)
    timed = ("minimax",)
    load = "import"
    forms: ClassVar[dict[str, Form]] = {
        "initial_state": BOARD,
        "winner": SYMBOL,
        "terminal": kind(bool),
        "utility": one_of(-1, 0, 1),
        "player": SYMBOL,
        "actions": listing(CELL),
        "result": BOARD,
        "minimax": either(one_of(None), CELL),
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
            return literal("." * 9)
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
            return literal(child) + ", input unchanged"
        if truth.terminal[i]:
            return "None (the game is over)"
        moves = ", ".join(str(divmod(m, 3)) for m in sorted(truth.optimal[i]))
        value = {1: "X wins", 0: "a draw", -1: "O wins"}[truth.value[i]]
        return f"one of {moves} (keeps the game value: {value})"

    def got(self, function: str, outcome: list[Any], case: Case) -> str:
        failed = failure(outcome)
        if failed:
            return failed
        value = outcome[1]
        junk = garbage(value)
        if junk is not None:
            kind = {
                "terminal": "bool",
                "actions": "set of (i, j) actions",
                "minimax": "(i, j) action",
                "result": "board",
                "initial_state": "board",
            }.get(function, function)
            return f"{junk} (not a valid {kind})"
        if function in ("player", "winner"):
            return _symbol(value)
        if function == "actions":
            return _actions(value)
        if function == "minimax":
            return "None" if value is None else str(divmod(value, 3))
        if function in ("result", "initial_state"):
            shown = literal(value)
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
            args = literal(case.board) + (f", {case.arg}" if function == "result" else "")
        wanted = (
            "should raise an exception"
            if expected == "an exception"
            else f"should return {expected}"
        )
        return f"{function}({args}) {wanted}, got {got}"
