"""``play_game``'s recording agents (standard library only): two spies that play random
legal moves and log each call the student's game loop makes on them, and the moves they
make when a game is played right (the grader plans its seeds from :func:`spy_game`)."""

from __future__ import annotations

import random
from typing import Any

from .base import short, whole
from .standin import LINES, text

__all__ = ["EVENTS", "SHOWN", "Enough", "Spy", "pick", "spy_game"]

#: The most calls ``play_game`` may make on the two recording agents (a game makes 29).
EVENTS = 64


def pick(rng: random.Random, board: str) -> int:
    """A recording agent's move: an empty cell drawn by ``rng`` (-1 on a full board)."""
    empty = [k for k, c in enumerate(board) if c == "."]
    return empty[rng.randrange(len(empty))] if empty else -1


class Enough(BaseException):
    """``play_game`` made more calls than a game needs: it is stopped here."""


class Spy:
    """A recording agent for ``play_game``: it plays random legal moves and logs each call
    as ``[kind, who, board, extra]``: ``"a"`` take_action (the board before, the cell
    played), ``"h"`` update_state_history (the game's board then, the state it was given),
    ``"u"`` update (the board of the env it was given, 1 when that is the game's env)."""

    def __init__(self, who: int, sym: int, seed: int, game: Any, log: list[Any]) -> None:
        self.who, self.sym, self.game, self.log = who, sym, game, log
        self.rng = random.Random(seed * 2 + who)
        self.eps, self.alpha = 0.0, 0.5
        self.state_history: list[Any] = []

    def _record(self, event: list[Any]) -> None:
        if len(self.log) >= EVENTS:
            raise Enough
        self.log.append(event)

    def take_action(self, env: Any) -> None:
        before = text(env)
        cell = pick(self.rng, before)
        self._record(["a", self.who, before, cell])
        if cell >= 0:
            env.board[cell // 3, cell % 3] = self.sym

    def update_state_history(self, s: Any) -> None:
        state = whole(s)
        given = state if state is not None else ["g", short(s)[:20]]
        self._record(["h", self.who, text(self.game), given])

    update_state_histories = update_state_history  # the notebook's name

    def update(self, env: Any) -> None:
        self._record(["u", self.who, text(env), int(env is self.game)])

    def set_symbol(self, sym: Any) -> None:
        pass

    def setV(self, V: Any) -> None:  # noqa: N802 (the course's name)
        pass

    def set_verbose(self, v: Any) -> None:
        pass

    def reset_history(self) -> None:
        pass


#: How what the student's ``play_game`` raises on a recording agent names it (never as the
#: grader's class): ``'...' object has no attribute 'verbose'``, ``p1/p2.take_action()
#: got an unexpected keyword argument``.
SHOWN = "the recording agent tttlab passes as p1/p2"
Spy.__name__ = Spy.__qualname__ = SHOWN
for _name, _method in list(vars(Spy).items()):
    if callable(_method) and getattr(_method, "__name__", "") == _name:
        _method.__qualname__ = f"p1/p2.{_name}"


def spy_game(seed: int) -> list[int]:
    """The moves two recording agents make with ``seed`` when a game is played right (the
    grader picks seeds that end in wins for each seat and draws)."""
    rngs = {1: random.Random(seed * 2 + 1), 2: random.Random(seed * 2 + 2)}
    board, moves = ["."] * 9, list[int]()
    while True:
        codes = [".XO".index(c) for c in board]
        won = any(codes[a] and codes[a] == codes[b] == codes[c] for a, b, c in LINES)
        if won or all(codes):
            return moves
        who = 1 + len(moves) % 2
        cell = pick(rngs[who], "".join(board))
        board[cell] = "X" if who == 1 else "O"
        moves.append(cell)
