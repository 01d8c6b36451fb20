"""The course's ``Environment`` class (seeds 000 and 001: ``board`` a 3×3 numpy array,
``x = -1``, ``o = 1``, 0 empty): ``get_state`` on all 3^9 boards, ``game_over`` and ``winner``
and ``reward`` on every reachable board, ``get_state_hash_and_winner`` (every board once),
``initialV_x`` and ``initialV_o`` (or the course's ``initialV_0``). The grader's side (the
box's: :mod:`tttlab.usercode.boxside.shapes.course`).
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any, ClassVar

from . import base
from .base import GARBAGE, SYMBOL, Case, Exercise, Form

if TYPE_CHECKING:
    from tttlab.usercode.cases import ExerciseTruth
    from tttlab.usercode.report import CheckReport

__all__ = ["ALL_BOARDS", "CourseExercise", "board_of", "state_id"]

ALL_BOARDS = 3**9
_DIGIT = {".": 0, "X": 1, "O": 2}


def board_of(state: int) -> str:
    """The board of a course state (``"X.O......"``)."""
    cells = []
    for _ in range(9):
        state, v = divmod(state, 3)
        cells.append(".XO"[v])
    return "".join(cells)


def state_id(board: str) -> int:
    """The course's state of a board: base 3, cell k weighs 3**k, empty 0, x 1, o 2."""
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
    whole = ("get_state_hash_and_winner", "initialV_x", "initialV_o")
    arity: ClassVar[dict[str, int]] = {
        "get_state_hash_and_winner": 1,
        "initialV_x": 2,
        "initialV_o": 2,
        "initialV_0": 2,
    }
    members: ClassVar[dict[str, tuple[str, ...]]] = {
        "Environment": ("get_state", "game_over", "reward")
    }
    attributes = (
        "board",
        "x",
        "o",
        "winner",
        "ended",
        "get_state",
        "game_over",
        "reward",
        "force_recalculate",
    )
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
        "get_state": base.kind(int),
        "game_over": base.row(
            base.either(base.kind(bool), GARBAGE),
            base.either(SYMBOL, GARBAGE),
            base.either(base.kind(bool), GARBAGE),
        ),
        "winner": SYMBOL,
        "reward": base.kind(int),
        "get_state_hash_and_winner": base.listing(
            base.row(base.kind(int), SYMBOL, base.kind(bool))
        ),
        "initialV_x": base.listing(base.kind(float)),  # the worker writes floats only
        "initialV_o": base.listing(base.kind(float)),
    }

    def cases(self, truth: ExerciseTruth) -> dict[str, list[Case]]:
        reachable = [Case(truth.boards[i], i) for i in range(truth.size)]
        every = [
            Case(b, truth.where.get(b, truth.size + s))
            for s in range(ALL_BOARDS)
            for b in (board_of(s),)
        ]
        triples = [
            [state_id(c.board), truth.winner[c.rank], truth.terminal[c.rank]] for c in reachable
        ]
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

    def _first_wrong(
        self, function: str, case: Case, value: Any, truth: ExerciseTruth
    ) -> str | None:
        """For the whole-table checks: the first entry that is wrong, in words."""
        if function == "get_state_hash_and_winner":
            seen: dict[int, list[Any]] = {}
            for state, winner, ended in value:
                if type(state) is not int or not 0 <= state < ALL_BOARDS:
                    return f"state {str(state)[:20]} is not a board's (0 to {ALL_BOARDS - 1:,})"
                if state in seen:
                    return f"state {state} ({base.grid(board_of(state))}) listed twice"
                seen[state] = [winner, ended]
            for state in range(ALL_BOARDS):
                if state not in seen:
                    return f"state {state} ({base.grid(board_of(state))}) missing"
            for board, winner, terminal in zip(
                truth.boards, truth.winner, truth.terminal, strict=True
            ):
                got = seen[state_id(board)]
                if got != [winner, terminal]:
                    return (
                        f"state {state_id(board)} ({base.grid(board)}): winner {_who(got[0])}, "
                        f"ended {got[1]}; expected winner {_who(winner)}, ended {terminal}"
                    )
            return None
        for triple, v in zip(case.arg, value, strict=True):
            wanted = self._value_wanted(function, triple)
            if not abs(v - wanted) <= 1e-9:  # NaN is never close
                shown = base.grid(board_of(triple[0]))
                return f"V[{triple[0]}] ({shown}) is {v:g}, expected {wanted:g}"
        return None

    def right(self, function: str, case: Case, outcome: list[Any], truth: ExerciseTruth) -> bool:
        if outcome[0] != "v" or base.garbage(outcome[1]) is not None:
            return False
        value = outcome[1]
        i = case.rank
        if function == "get_state":
            return bool(value == state_id(case.board))
        if function == "game_over":
            return bool(value[0] is truth.terminal[i] and value[2] is truth.terminal[i])
        if function == "winner":
            return bool(value == truth.winner[i])
        if function == "reward":
            return bool(value == int(truth.terminal[i] and truth.winner[i] == case.arg))
        return self._first_wrong(function, case, value, truth) is None

    def expected(self, function: str, case: Case, truth: ExerciseTruth) -> str:
        i = case.rank
        if function == "get_state":
            return str(state_id(case.board))
        if function == "game_over":
            return f"{truth.terminal[i]}, with ended = {truth.terminal[i]}"
        if function == "winner":
            return f"env.{_who(truth.winner[i])}" if truth.winner[i] != "." else "None"
        if function == "reward":
            return str(int(truth.terminal[i] and truth.winner[i] == case.arg))
        if function == "get_state_hash_and_winner":
            return f"all {ALL_BOARDS:,} states once, with the right winner and ended"
        return "1 for a win, 0 for a loss or a draw, 0.5 otherwise"

    def shown(self, function: str, outcome: list[Any], case: Case, truth: ExerciseTruth) -> str:
        value = outcome[1]
        if function == "game_over":
            shown = [base.garbage(v) or v for v in value]
            return f"{shown[0]}, with ended = {shown[2]}"
        if function == "winner":
            return f"env.{_who(value)}" if value != "." else "None"
        if function in ("get_state_hash_and_winner", "initialV_x", "initialV_o"):
            return self._first_wrong(function, case, value, truth) or "right"
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
        return f"with env.board = {base.grid(case.board)}: {call} should give {expected}, got {got}"

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
            except (SyntaxError, ValueError, MemoryError, RecursionError):
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
