"""The course's ``Environment`` as the course means it (seeds 000/001, its listing's bugs
fixed): the stand-in a student's TD agent plays on in the box (standard library only).

``x = -1``, ``o = 1``, 0 empty, ``board`` a 3×3 numpy float array when numpy imports here,
else a small grid that reads ``board[i, j]`` and ``board[i][j]`` alike. The states, the end
of the game and the rewards are the course's, whatever the student's own Environment says
(the ``course`` shape grades that one); :mod:`.ownenv` adds what the student's Environment
has beyond the course's.
"""

from __future__ import annotations

from typing import Any

from .base import short

__all__ = ["ENVIRONMENT", "INSTANCE", "LINES", "SIZE", "Environment", "Grid", "numpy_here", "text"]

#: The states of a 3×3 board (the course's ``num_states``).
SIZE = 3**9
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
#: The names of the course's Environment that the student's agent may read under names of
#: its own (``--name board=tiles``).
ENVIRONMENT = ("board", "x", "o", "winner", "ended", "is_empty", "get_state", "game_over", "reward")
#: The attributes the stand-in sets on each instance (the rest are its methods).
INSTANCE = ("board", "x", "o", "winner", "ended", "num_states", "_aliases")


def numpy_here() -> Any:
    """numpy, when it imports and works here (a stub may stand in for a missing one)."""
    try:
        import numpy

        numpy.zeros((3, 3))
        return numpy
    except BaseException:
        return None


class Grid:
    """A 3×3 board without numpy: ``board[i, j]`` and ``board[i][j]`` alike."""

    def __init__(self) -> None:
        self.rows = [[0.0] * 3 for _ in range(3)]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, tuple):
            return self.rows[key[0]][key[1]]
        return self.rows[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, tuple):
            self.rows[key[0]][key[1]] = value
        else:
            self.rows[key] = list(value)


class Environment:
    """The stand-in the student's agent plays on. ``aliases`` maps the student's names of
    its attributes to the course's."""

    def __init__(self, np: Any, aliases: dict[str, str] | None = None) -> None:
        self._aliases = aliases or {}
        self.board: Any = np.zeros((3, 3)) if np is not None else Grid()
        self.x, self.o = -1, 1
        self.winner: Any = None
        self.ended = False
        self.num_states = SIZE

    def __getattr__(self, name: str) -> Any:
        ours = self.__dict__.get("_aliases", {}).get(name)
        if ours is None:
            raise AttributeError(f"'Environment' has no attribute {name!r} (use --name)")
        return getattr(self, ours)

    def is_empty(self, i: int, j: int) -> Any:
        return self.board[i, j] == 0

    is_empthy = is_empty  # the blog's spelling

    def codes(self) -> list[int]:
        """Each cell as the state counts it: 0 empty, 1 x, 2 o."""
        out = []
        for k in range(9):
            v = self.board[k // 3, k % 3]
            if v == 0:
                out.append(0)
            elif v == self.x:
                out.append(1)
            elif v == self.o:
                out.append(2)
            else:
                raise ValueError(f"board[{k // 3}, {k % 3}] holds {short(v)}: not 0, x or o")
        return out

    def get_state(self) -> int:
        return sum(3**k * v for k, v in enumerate(self.codes()))

    def game_over(self, force_recalculate: bool = False) -> bool:
        if not force_recalculate and self.ended:
            return self.ended
        codes = self.codes()
        for a, b, c in LINES:
            if codes[a] != 0 and codes[a] == codes[b] == codes[c]:
                self.winner = self.x if codes[a] == 1 else self.o
                self.ended = True
                return True
        self.winner = None
        if all(codes):
            self.ended = True
            return True
        return False

    def reward(self, sym: Any) -> int:
        if not self.game_over():
            return 0
        return 1 if self.winner == sym else 0

    def draw_board(self) -> None:
        for r in range(3):
            print(" ".join(".xo"[v] for v in self.codes()[r * 3 : r * 3 + 3]))


def text(env: Any) -> str:
    """The board of ``env`` as ``"X.O......"`` (``?`` for a cell that holds neither 0, x
    nor o, or cannot be read)."""
    cells = []
    for k in range(9):
        try:
            v = env.board[k // 3, k % 3]
            cells.append("." if v == 0 else "X" if v == -1 else "O" if v == 1 else "?")
        except BaseException:
            cells.append("?")
    return "".join(cells)
