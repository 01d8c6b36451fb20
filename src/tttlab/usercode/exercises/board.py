"""The ``Board`` class of the Q-learning text (seed 003): ``Board(state)`` sets ``state`` and
``open`` on every reachable board; ``play(action, player)`` on every legal action leaves the
right ``state``, ``open``, ``winner`` and ``reward``. The grader's side (the box's:
:mod:`tttlab.usercode.boxside.shapes.board`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from . import base
from .base import GARBAGE, Case, Exercise, Form

if TYPE_CHECKING:
    from tttlab.usercode.cases import ExerciseTruth

__all__ = ["BoardExercise"]

_DIGIT = {".": 0, "X": 1, "O": 2}


class BoardExercise(Exercise):
    """The Board class of the Q-learning text."""

    key = "board"
    functions = ("Board", "play")
    names = ("Board",)
    members: ClassVar[dict[str, tuple[str, ...]]] = {"Board": ("play",)}
    attributes = ("state", "open", "winner", "reward", "play")
    needs: ClassVar[dict[str, tuple[str, ...]]] = {"Board": ("Board",), "play": ("Board",)}
    _after_form = base.row(
        base.kind(str),
        base.listing(base.kind(int)),
        base.either(base.one_of(None, "0", "1", "2"), GARBAGE),
        base.either(base.kind(int), GARBAGE),
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
        if outcome[0] != "v" or base.garbage(outcome[1]) is not None:
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

    def answer(self, function: str) -> str:
        return "board"

    def shown(self, function: str, outcome: list[Any], case: Case, truth: ExerciseTruth) -> str:
        value = outcome[1]
        shown = [base.garbage(v) or v for v in value]
        return self._describe(shown if function == "play" else shown[:2])

    def call(self, function: str, case: Case) -> str:
        if function == "Board":
            return f"Board({self._digits(case.board)!r})"
        player = "1" if case.board.count("X") == case.board.count("O") else "2"
        return f"Board({self._digits(case.board)!r}).play({case.arg}, {player!r})"

    def repro(self, function: str, case: Case, expected: str, got: str) -> str:
        return f"{self.call(function, case)} should leave {expected}; got {got}"
