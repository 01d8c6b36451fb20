"""``ttt check`` for the course's own classes (seeds 000, 001 and 003), parent side.

- ``course``: the ``Environment`` class (``board`` a 3×3 numpy array, ``x = -1``,
  ``o = 1``, 0 empty): ``get_state`` on all 3^9 boards, ``game_over`` and ``winner`` and
  ``reward`` on every reachable board, ``get_state_hash_and_winner`` (every board once),
  ``initialV_x`` and ``initialV_o`` (or the course's ``initialV_0``).
- ``board``: the ``Board`` class of the Q-learning text: ``Board(state)`` sets ``state``
  and ``open`` on every reachable board; ``play(action, player)`` on every legal action
  leaves the right ``state``, ``open``, ``winner`` and ``reward``.
"""

from __future__ import annotations

import ast
import re
from typing import Any, ClassVar

from tttlab.usercode.cases import ExerciseTruth, exercise_truth
from tttlab.usercode.exercises import (
    GARBAGE,
    SYMBOL,
    Case,
    Exercise,
    Form,
    either,
    failure,
    garbage,
    grid,
    kind,
    listing,
    one_of,
    row,
)
from tttlab.usercode.report import CheckReport

__all__ = ["BoardExercise", "CourseExercise"]

ALL_BOARDS = 3**9
_DIGIT = {".": 0, "X": 1, "O": 2}


def _text(state: int) -> str:
    cells = []
    for _ in range(9):
        state, v = divmod(state, 3)
        cells.append(".XO"[v])
    return "".join(cells)


def _id(board: str) -> int:
    return sum(3**k * _DIGIT[c] for k, c in enumerate(board))


def _who(symbol: str) -> str:
    return {"X": "x", "O": "o", ".": "None"}[symbol]


class CourseExercise(Exercise):
    """The course's Environment and its helpers."""

    key = "course"
    functions = (
        "get_state",
        "game_over",
        "winner",
        "reward",
        "get_state_hash_and_winner",
        "initialV_x",
        "initialV_o",
    )
    names = ("Environment", "get_state_hash_and_winner", "initialV_x", "initialV_o|initialV_0")
    needs: ClassVar[dict[str, tuple[str, ...]]] = {
        "get_state": ("Environment",),
        "game_over": ("Environment",),
        "winner": ("Environment",),
        "reward": ("Environment",),
        "get_state_hash_and_winner": ("Environment", "get_state_hash_and_winner"),
        "initialV_x": ("Environment", "initialV_x"),
        "initialV_o": ("Environment", "initialV_o|initialV_0"),
    }
    forms: ClassVar[dict[str, Form]] = {
        "get_state": kind(int),
        "game_over": row(
            either(kind(bool), GARBAGE), either(SYMBOL, GARBAGE), either(kind(bool), GARBAGE)
        ),
        "winner": SYMBOL,
        "reward": kind(int),
        "get_state_hash_and_winner": listing(row(kind(int), SYMBOL, kind(bool))),
        "initialV_x": listing(kind(int, float)),
        "initialV_o": listing(kind(int, float)),
    }

    def cases(self, truth: ExerciseTruth) -> dict[str, list[Case]]:
        reachable = [Case(truth.boards[i], i) for i in range(truth.size)]
        every = [
            Case(b, truth.where.get(b, truth.size + s))
            for s in range(ALL_BOARDS)
            for b in (_text(s),)
        ]
        triples = [[_id(c.board), truth.winner[c.rank], truth.terminal[c.rank]] for c in reachable]
        return {
            "get_state": every,
            "game_over": reachable,
            "winner": reachable,
            "reward": [Case(c.board, c.rank, seat) for c in reachable for seat in "XO"],
            "get_state_hash_and_winner": [Case("." * 9, 0)],
            "initialV_x": [Case("." * 9, 0, triples)],
            "initialV_o": [Case("." * 9, 0, triples)],
        }

    def payload(self, function: str, case: Case) -> Any:
        if function in ("initialV_x", "initialV_o"):
            return case.arg
        return super().payload(function, case)

    def _value_wanted(self, function: str, triple: list[Any]) -> float:
        _, winner, ended = triple
        seat = "X" if function == "initialV_x" else "O"
        return (1.0 if winner == seat else 0.0) if ended else 0.5

    def _first_wrong(self, function: str, case: Case, value: Any) -> str | None:
        """For the whole-table checks: the first entry that is wrong, in words."""
        truth = exercise_truth()
        if function == "get_state_hash_and_winner":
            seen: dict[int, list[Any]] = {}
            for state, winner, ended in value:
                if type(state) is not int or not 0 <= state < ALL_BOARDS:
                    return f"state {str(state)[:20]} is not a board's (0 to {ALL_BOARDS - 1:,})"
                if state in seen:
                    return f"state {state} ({grid(_text(state))}) listed twice"
                seen[state] = [winner, ended]
            for state in range(ALL_BOARDS):
                if state not in seen:
                    return f"state {state} ({grid(_text(state))}) missing"
            for board, winner, terminal in zip(
                truth.boards, truth.winner, truth.terminal, strict=True
            ):
                got = seen[_id(board)]
                if got != [winner, terminal]:
                    return (
                        f"state {_id(board)} ({grid(board)}): winner {_who(got[0])}, "
                        f"ended {got[1]}; expected winner {_who(winner)}, ended {terminal}"
                    )
            return None
        for triple, v in zip(case.arg, value, strict=True):
            wanted = self._value_wanted(function, triple)
            if not abs(v - wanted) <= 1e-9:  # NaN is never close
                return f"V[{triple[0]}] ({grid(_text(triple[0]))}) is {v:g}, expected {wanted:g}"
        return None

    def right(self, function: str, case: Case, outcome: list[Any], truth: ExerciseTruth) -> bool:
        if outcome[0] != "v" or garbage(outcome[1]) is not None:
            return False
        value = outcome[1]
        i = case.rank
        if function == "get_state":
            return bool(value == _id(case.board))
        if function == "game_over":
            return bool(value[0] is truth.terminal[i] and value[2] is truth.terminal[i])
        if function == "winner":
            return bool(value == truth.winner[i])
        if function == "reward":
            return bool(value == int(truth.terminal[i] and truth.winner[i] == case.arg))
        return self._first_wrong(function, case, value) is None

    def expected(self, function: str, case: Case, truth: ExerciseTruth) -> str:
        i = case.rank
        if function == "get_state":
            return str(_id(case.board))
        if function == "game_over":
            return f"{truth.terminal[i]}, with ended = {truth.terminal[i]}"
        if function == "winner":
            return f"env.{_who(truth.winner[i])}" if truth.winner[i] != "." else "None"
        if function == "reward":
            return str(int(truth.terminal[i] and truth.winner[i] == case.arg))
        if function == "get_state_hash_and_winner":
            return f"all {ALL_BOARDS:,} states once, with the right winner and ended"
        return "1 for a win, 0 for a loss or a draw, 0.5 otherwise"

    def got(self, function: str, outcome: list[Any], case: Case) -> str:
        failed = failure(outcome)
        if failed:
            return failed
        value = outcome[1]
        junk = garbage(value)
        if junk is not None:
            return f"{junk} (not a valid answer)"
        if function == "game_over":
            shown = [garbage(v) or v for v in value]
            return f"{shown[0]}, with ended = {shown[2]}"
        if function == "winner":
            return f"env.{_who(value)}" if value != "." else "None"
        if function in ("get_state_hash_and_winner", "initialV_x", "initialV_o"):
            return self._first_wrong(function, case, value) or "right"
        return str(value)

    def call(self, function: str, case: Case) -> str:
        if function == "reward":
            return f"env.reward(env.{_who(str(case.arg))})"
        return {
            "get_state": "env.get_state()",
            "game_over": "env.game_over(force_recalculate=True)",
            "winner": "env.winner after env.game_over(force_recalculate=True)",
            "get_state_hash_and_winner": "get_state_hash_and_winner(Environment())",
            "initialV_x": "initialV_x(env, state_winner_triples)",
            "initialV_o": "initialV_o(env, state_winner_triples)",
        }[function]

    def repro(self, function: str, case: Case, expected: str, got: str) -> str:
        call = self.call(function, case)
        if function in ("get_state_hash_and_winner", "initialV_x", "initialV_o"):
            return f"{call}: expected {expected}; got {got}"
        return f"with env.board = {grid(case.board)}: {call} should give {expected}, got {got}"

    def hints(self, sources: dict[str, str], report: CheckReport) -> list[str]:
        found = []
        game_over = report.checks.get("game_over")
        explains = game_over is not None and game_over.wrong > 0
        for name, text in sources.items():
            typo = re.search(r"def game_over\(self,\s*force_recalculate\s*==", text)
            if typo:
                line = text.count("\n", 0, typo.start()) + 1
                found.append(
                    f"{name} line {line}: `force_recalculate==False` in a default argument is a "
                    "syntax error (the course listing's typo): write `force_recalculate=False`"
                )
                continue
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            for node in ast.walk(tree) if explains else ():
                if isinstance(node, ast.FunctionDef) and node.name == "game_over":
                    for branch in node.body:
                        if isinstance(branch, ast.If) and _returns_then_more(branch.body):
                            found.append(
                                f"{name} line {branch.lineno}: the checks in game_over are "
                                "indented under its early `return` and never run (as in the "
                                "course listing): dedent them"
                            )
        return found


def _returns_then_more(body: list[ast.stmt]) -> bool:
    for k, statement in enumerate(body[:-1]):
        if isinstance(statement, ast.Return):
            return k < len(body) - 1
    return False


class BoardExercise(Exercise):
    """The Board class of the Q-learning text."""

    key = "board"
    functions = ("Board", "play")
    names = ("Board",)
    needs: ClassVar[dict[str, tuple[str, ...]]] = {"Board": ("Board",), "play": ("Board",)}
    _after_form = row(
        kind(str),
        listing(kind(int)),
        either(one_of(None, "0", "1", "2"), GARBAGE),
        either(kind(int), GARBAGE),
    )
    forms: ClassVar[dict[str, Form]] = {"Board": _after_form, "play": _after_form}

    def cases(self, truth: ExerciseTruth) -> dict[str, list[Case]]:
        return {
            "Board": [Case(truth.boards[i], i) for i in range(truth.size)],
            "play": [
                Case(truth.boards[i], i, m) for i in truth.decisions() for m in truth.legal[i]
            ],
        }

    @staticmethod
    def _digits(board: str) -> str:
        return "".join(str(_DIGIT[c]) for c in board)

    def _after(self, case: Case, truth: ExerciseTruth) -> list[Any]:
        if case.arg is None:
            board = case.board
            return [self._digits(board), [k for k, c in enumerate(board) if c == "."]]
        child = truth.child[case.rank][case.arg]
        j = truth.where[child]
        winner = {"X": "1", "O": "2", ".": "0"}[truth.winner[j]] if truth.terminal[j] else None
        return [
            self._digits(child),
            [k for k, c in enumerate(child) if c == "."],
            winner,
            truth.utility[j],
        ]

    def right(self, function: str, case: Case, outcome: list[Any], truth: ExerciseTruth) -> bool:
        if outcome[0] != "v" or garbage(outcome[1]) is not None:
            return False
        wanted = self._after(case, truth)
        return bool(outcome[1][: len(wanted)] == wanted)

    def expected(self, function: str, case: Case, truth: ExerciseTruth) -> str:
        return self._describe(self._after(case, truth))

    @staticmethod
    def _describe(value: list[Any]) -> str:
        parts = [f"state {value[0]!r}", f"open {value[1]}"]
        if len(value) > 2:
            parts += [f"winner {value[2]!r}", f"reward {value[3]}"]
        return ", ".join(parts)

    def got(self, function: str, outcome: list[Any], case: Case) -> str:
        failed = failure(outcome)
        if failed:
            return failed
        value = outcome[1]
        junk = garbage(value)
        if junk is not None:
            return f"{junk} (not a valid board)"
        shown = [garbage(v) or v for v in value]
        return self._describe(shown if function == "play" else shown[:2])

    def call(self, function: str, case: Case) -> str:
        if function == "Board":
            return f"Board({self._digits(case.board)!r})"
        player = "1" if case.board.count("X") == case.board.count("O") else "2"
        return f"Board({self._digits(case.board)!r}).play({case.arg}, {player!r})"

    def repro(self, function: str, case: Case, expected: str, got: str) -> str:
        return f"{self.call(function, case)} should leave {expected}; got {got}"
