"""How the child of ``ttt check`` calls each exercise shape and encodes what comes back
(standard library only, like :mod:`tttlab.usercode.runner`).

Boards arrive as 9-character strings of ``X``, ``O`` and ``.``. Each shape turns them into
the student's own representation, makes one call per case, and encodes the answer in
tttlab's terms (or as ``["g", repr]`` when it is not a valid answer at all).

- ``cs50``: the exercise's functions over a list-of-lists board.
- ``course``: the course's ``Environment`` class (``board`` a 3×3 numpy array with
  ``x = -1``, ``o = 1``), ``get_state_hash_and_winner`` and ``initialV_x`` / ``initialV_o``.
- ``board``: the ``Board`` class of the Q-learning text (``state`` a string of "0", "1",
  "2"; ``play(action, player)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

__all__ = ["SHAPES", "short"]


def short(value: Any) -> str:
    try:
        text = repr(value)
    except BaseException:
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _garbage(value: Any) -> list[str]:
    return ["g", short(value)]


def _whole(value: Any) -> int | None:
    """An integer (Python's or numpy's, or a float with no fraction), else None."""
    if isinstance(value, bool):
        return None
    try:
        return int(value.__index__())
    except BaseException:
        pass
    try:
        number = float(value)
    except BaseException:
        return None
    return int(number) if number.is_integer() else None


def _truth(value: Any) -> bool | None:
    """True or False (Python's or numpy's), else None."""
    if type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    return None


def _pair(value: Any) -> int | None:
    """The cell index of an ``(i, j)`` action with 0 <= i, j < 3, else None."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return None
    i, j = (_whole(v) for v in value)
    if i is None or j is None or not (0 <= i < 3 and 0 <= j < 3):
        return None
    return i * 3 + j


class Shape:
    """One exercise shape: the names it needs and a call per function."""

    names: tuple[str, ...] = ()

    def __init__(self, ns: Any) -> None:
        self.ns = ns

    def prepare(self) -> dict[str, Any] | None:
        """Anything to report before the calls (a dict), or None."""
        return None

    def call(self, function: str, case: Any, run: Callable[..., list[Any]]) -> list[Any]:
        """Make one call through ``run(callable, *args)`` and encode its value."""
        raise NotImplementedError


class CS50(Shape):
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
            return _garbage(value)
        out = []
        for row in value:
            if not isinstance(row, (list, tuple)) or len(row) != 3:
                return _garbage(value)
            for cell in row:
                name = self.symbol(cell)
                if name is None:
                    return _garbage(value)
                out.append(name)
        return "".join(out)

    def encode(self, function: str, value: Any) -> Any:
        if function in ("player", "winner"):
            name = self.symbol(value)
            return name if name is not None else _garbage(value)
        if function == "terminal":
            return value if type(value) is bool else _garbage(value)
        if function == "utility":
            number = _whole(value)
            return number if number in (-1, 0, 1) else _garbage(value)
        if function == "actions":
            if isinstance(value, (str, bytes)):
                return _garbage(value)
            try:
                cells = [_pair(a) for a in list(value)]
            except BaseException:
                return _garbage(value)
            if any(c is None for c in cells):
                return _garbage(value)
            return sorted(c for c in cells if c is not None)
        if function == "minimax":
            if value is None:
                return None
            cell = _pair(value)
            return cell if cell is not None else _garbage(value)
        return self.encode_board(value)  # result, initial_state

    def call(self, function: str, case: Any, run: Callable[..., list[Any]]) -> list[Any]:
        target = getattr(self.ns, function)
        if function == "initial_state":
            outcome = run(target)
        elif function == "result":
            board = self.board(case[0])
            before = [list(row) for row in board]  # cells are the student's constants
            outcome = run(target, board, tuple(case[1]))
            if board != before:
                outcome.append("changed")
        else:
            outcome = run(target, self.board(case))
        if outcome[0] == "v":
            outcome[1] = self.encode(function, outcome[1])
        return outcome


class Course(Shape):
    """The course's Environment (x = -1, o = 1 on a numpy board)."""

    def env(self, board: str | None = None) -> Any:
        env = self.ns.Environment()
        if board is not None:
            values = {"X": env.x, "O": env.o, ".": 0}
            for k, c in enumerate(board):
                env.board[k // 3, k % 3] = values[c]
        return env

    def symbol(self, env: Any, value: Any) -> str | None:
        if value is None:
            return "."
        try:
            if value == env.x:
                return "X"
            if value == env.o:
                return "O"
        except BaseException:
            return None
        return None

    def call(self, function: str, case: Any, run: Callable[..., list[Any]]) -> list[Any]:
        ns = self.ns
        if function == "get_state":
            outcome = run(lambda: self.env(case).get_state())
            if outcome[0] == "v":
                number = _whole(outcome[1])
                outcome[1] = number if number is not None else _garbage(outcome[1])
            return outcome
        if function == "game_over":

            def game_over() -> Any:
                env = self.env(case)
                ended = env.game_over(force_recalculate=True)
                return [ended, env.winner, env.ended, env]

            outcome = run(game_over)
            if outcome[0] == "v":
                ended, winner, flag, env = outcome[1]
                parts = [_truth(ended), self.symbol(env, winner), _truth(flag)]
                shown = [short(ended), short(winner), short(flag)]
                outcome[1] = [
                    p if p is not None else ["g", s] for p, s in zip(parts, shown, strict=True)
                ]
            return outcome
        if function == "winner":

            def winner() -> Any:
                env = self.env(case)
                env.game_over(force_recalculate=True)
                return self.symbol(env, env.winner) or ["g", short(env.winner)]

            return run(winner)
        if function == "reward":
            board, seat = case

            def reward() -> Any:
                env = self.env(board)
                return env.reward(env.x if seat == "X" else env.o)

            outcome = run(reward)
            if outcome[0] == "v":
                number = _whole(outcome[1])
                outcome[1] = number if number is not None else _garbage(outcome[1])
            return outcome
        if function == "get_state_hash_and_winner":
            outcome = run(lambda: self._triples(ns.get_state_hash_and_winner(self.env())))
            return outcome
        # initialV_x, initialV_o: called with the reachable states' triples
        target = getattr(ns, function, None) or ns.initialV_0

        def initial() -> Any:
            env = self.env()
            symbols = {"X": env.x, "O": env.o, ".": None}
            triples = [(s, symbols[w], bool(e)) for s, w, e in case]
            values = target(env, triples)
            return [float(values[s]) for s, _, _ in case]

        return run(initial)

    def _triples(self, found: Any) -> Any:
        env = self.env()
        try:
            items = list(found)
        except BaseException:
            return _garbage(found)
        out = []
        for item in items:
            try:
                state, winner, ended = item
            except BaseException:
                return _garbage(item)
            number, flag, name = _whole(state), _truth(ended), self.symbol(env, winner)
            if number is None or flag is None or name is None:
                return _garbage(item)
            out.append([number, name, flag])
        return out


class BoardShape(Shape):
    """The Board class of the Q-learning text ("0" empty, "1" X, "2" O)."""

    digits: ClassVar[dict[str, str]] = {"X": "1", "O": "2", ".": "0"}

    def encode(self, board: Any) -> Any:
        state, open_, winner, reward = (
            getattr(board, a, None) for a in ("state", "open", "winner", "reward")
        )
        if not isinstance(state, str):
            return _garbage(state)
        try:
            found = [_whole(c) for c in open_]  # type: ignore[union-attr]
        except BaseException:
            return _garbage(open_)
        if any(c is None for c in found):
            return _garbage(open_)
        cells = sorted(c for c in found if c is not None)
        number = _whole(reward)
        return [
            state,
            cells,
            winner if winner in (None, "0", "1", "2") else _garbage(winner),
            number if number is not None else _garbage(reward),
        ]

    def call(self, function: str, case: Any, run: Callable[..., list[Any]]) -> list[Any]:
        if function == "Board":
            state = "".join(self.digits[c] for c in case)
            outcome = run(lambda: self.ns.Board(state))
        else:
            board_text, action = case
            state = "".join(self.digits[c] for c in board_text)
            player = "1" if board_text.count("X") == board_text.count("O") else "2"

            def play() -> Any:
                board = self.ns.Board(state)
                board.play(action, player)
                return board

            outcome = run(play)
        if outcome[0] == "v":
            outcome[1] = self.encode(outcome[1])
        return outcome


SHAPES: dict[str, type[Shape]] = {"cs50": CS50, "course": Course, "board": BoardShape}
