"""The ``Board`` class of the Q-learning text in the box ("0" empty, "1" X, "2" O)."""

from __future__ import annotations

from typing import Any, ClassVar

from .base import Child, Run, garbage_of, whole

__all__ = ["BoardChild"]


class BoardChild(Child):
    """``Board(state)``, and ``play(action, player)`` on it."""

    digits: ClassVar[dict[str, str]] = {"X": "1", "O": "2", ".": "0"}

    def encode(self, board: Any) -> Any:
        state, open_, winner, reward = (
            getattr(board, self.renames.get(a, a), None)
            for a in ("state", "open", "winner", "reward")
        )
        if not isinstance(state, str):
            return garbage_of(state)
        try:
            found = [whole(c) for c in open_]  # type: ignore[union-attr]
        except BaseException:
            return garbage_of(open_)
        if any(c is None for c in found):
            return garbage_of(open_)
        cells = sorted(c for c in found if c is not None)
        number = whole(reward)
        return [
            state,
            cells,
            winner if winner in (None, "0", "1", "2") else garbage_of(winner),
            number if number is not None else garbage_of(reward),
        ]

    def call(self, function: str, case: Any, run: Run) -> list[Any]:
        if function == "Board":
            state = "".join(self.digits[c] for c in case)
            outcome = run(lambda: self.ns.Board(state))
        else:
            board_text, action = case
            state = "".join(self.digits[c] for c in board_text)
            player = "1" if board_text.count("X") == board_text.count("O") else "2"

            def play() -> Any:
                board = self.ns.Board(state)
                self.at(board, "play")(action, player)
                return board

            outcome = run(play)
        return self.encoded(outcome, self.encode)
