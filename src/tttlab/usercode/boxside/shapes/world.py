"""The student's own world: the agent plays on the student's own ``Environment`` (standard
library only).

Where a submission has its own ``Environment``, the agent is graded on it: built as its own
constructor reads (``Environment()``, ``Environment(rows=3, columns=3)``), with its own
methods and attributes (an ``is_empty(x, y)`` that reads column first, an ``env.rows`` the
agent reads). tttlab sets and reads the board through a mapping (:class:`Own`): the
attribute that holds the board (``board``, the ``--name`` for it, else the one attribute
that holds a 3×3 or 9-cell board), its cells (``board[i, j]``, ``board[i][j]`` or
``board[k]``), the symbols (``env.x`` and ``env.o`` under the student's names) and the value
of an empty cell (what a fresh board holds).

tttlab's truth still judges: the world is used only where it agrees with the course on a few
boards (:meth:`Own.check`): what tttlab sets reads back, its state is the course's state of
that board (the value tables are indexed by it), and a won board is over with a reward of 1
for the winner. Otherwise the stand-in is used (:mod:`.ownenv`), and a note says why.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from ..schema import cut
from .building import NotBuilt, construct

__all__ = ["BOARDS", "Own", "course_state"]

#: Each check board's winner ("X", "O", "" for a draw) where the game is over.
OVER = {"XXXOO....": "X", "XX.OOO.X.": "O", "XOXXOOOXX": ""}
#: What the student's Environment is given, by the names its parameters use.
ROLES = {"size": 3, "columns": 3, "k": 3}
#: The boards a world must set, read back and count as the course does: the empty board,
#: a move each, a win for X (over), a draw (over).
BOARDS = ("." * 9, "X........", "XO.......", *OVER)


def course_state(board: str) -> int:
    """The course's state of a board: base 3, cell k weighs 3**k, empty 0, x 1, o 2."""
    return sum(3**k * ".XO".index(c) for k, c in enumerate(board))


def _shape(value: Any) -> str | None:
    """How a board is indexed: "pair" (``board[i, j]``, a 3×3 array), "rows"
    (``board[i][j]``, a list of 3 rows), "flat" (``board[k]``), or None (no board)."""
    try:
        if tuple(getattr(value, "shape", ())) == (3, 3):
            return "pair"
        if len(value) == 3 and all(len(row) == 3 for row in value):
            return "rows"
        if len(value) == 9 and not isinstance(value, (str, bytes)):
            return "flat"
    except BaseException:
        return None
    return None


class Own:
    """The student's ``Environment`` as a world to play on; ``renames`` maps the course's
    names to the student's (``board``, ``x``, ``o``). :meth:`check` says whether it can be
    played on (None) or why not (a reason in words)."""

    def __init__(self, cls: Any, renames: Mapping[str, str]) -> None:
        self.cls, self.renames = cls, renames
        self.call = ""
        self.board = renames.get("board", "board")
        self.shape: str | None = None
        self.empty: Any = 0

    def _build(self) -> Any:
        built = construct(self.cls, ROLES)
        name = getattr(self.cls, "__name__", "Environment")
        self.call = built.call if built.passed else f"{name}()"
        return built.obj

    def fresh(self) -> Any:
        """A new environment of the student's, with an empty board."""
        return self._build()

    def symbol(self, env: Any, seat: str) -> Any:
        """The student's symbol for a seat ("X" or "O")."""
        name = "x" if seat == "X" else "o"
        return getattr(env, self.renames.get(name, name))

    def method(self, env: Any, name: str) -> Any:
        """``env``'s method ``name``, under the student's name for it."""
        return getattr(env, self.renames.get(name, name))

    def _cells(self, env: Any) -> Any:
        return getattr(env, self.board)

    def get(self, env: Any, k: int) -> Any:
        cells = self._cells(env)
        if self.shape == "pair":
            return cells[k // 3, k % 3]
        if self.shape == "rows":
            return cells[k // 3][k % 3]
        return cells[k]

    def set(self, env: Any, k: int, value: Any) -> None:
        cells = self._cells(env)
        if self.shape == "pair":
            cells[k // 3, k % 3] = value
        elif self.shape == "rows":
            cells[k // 3][k % 3] = value
        else:
            cells[k] = value

    def put(self, env: Any, board: str) -> None:
        """Set every cell of ``env``'s board to ``board`` ("X.O......")."""
        values = {".": self.empty, "X": self.symbol(env, "X"), "O": self.symbol(env, "O")}
        for k, c in enumerate(board):
            self.set(env, k, values[c])

    def read(self, env: Any) -> str:
        """``env``'s board as "X.O......" (``?`` for a cell that holds none of the three)."""
        try:
            x, o = self.symbol(env, "X"), self.symbol(env, "O")
        except BaseException:
            return "?" * 9
        cells = []
        for k in range(9):
            try:
                v = self.get(env, k)
                cells.append("X" if v == x else "O" if v == o else "." if v == self.empty else "?")
            except BaseException:
                cells.append("?")
        return "".join(cells)

    def check(self) -> str | None:
        """None where the world can be played on; else why not, in words."""
        return self.locate() or self._agrees()

    def locate(self) -> str | None:
        """Find the board and the symbols of a fresh environment: None where found, else
        why not, in words."""
        try:
            env = self._build()
        except NotBuilt:
            return "its constructor needs arguments tttlab cannot name"
        except BaseException as error:
            return f"Environment() raised {type(error).__name__}"
        if self.board == "board" and not _has(env, "board"):
            found = [n for n, v in _attributes(env) if _shape(v) is not None]
            if len(found) != 1:
                return "no one attribute holds its board (--name board=YOURS names it)"
            self.board = found[0]
        try:
            self.shape = _shape(self._cells(env))
            if self.shape is None:
                return f"env.{self.board} is no 3×3 or 9-cell board"
            first = self.get(env, 0)
            self.empty = first
            if any(not bool(self.get(env, k) == first) for k in range(9)):
                return f"a fresh env.{self.board} is not all one empty value"
            x, o = self.symbol(env, "X"), self.symbol(env, "O")
            if bool(x == o) or bool(x == first) or bool(o == first):
                return "its symbols x and o are not apart from an empty cell"
        except BaseException as error:
            return f"its board or symbols cannot be read ({type(error).__name__})"
        return None

    def _agrees(self) -> str | None:
        """Whether the student's own methods count the check boards as the course does."""
        for board in BOARDS:
            try:
                env = self.fresh()
                self.put(env, board)
                if self.read(env) != board:
                    return f"a board tttlab set reads back otherwise ({board})"
                state = self.method(env, "get_state")()
                if state != course_state(board):
                    wanted = course_state(board)
                    return f"get_state gives {state!r} for {board}, the course's {wanted}"
                over = bool(self.method(env, "game_over")())
                if over != (board in OVER):
                    return f"game_over gives {over} for {board}"
                for seat in "XO":
                    reward = self.method(env, "reward")(self.symbol(env, seat))
                    wanted = int(OVER.get(board) == seat)
                    if reward != wanted:
                        return f"reward for {seat} on {board} is {reward!r}, the course's {wanted}"
                empty = self.method(env, "is_empty")
                for k in (0, 4, 8):  # the diagonal: the same whichever index comes first
                    if bool(empty(k // 3, k % 3)) != (board[k] == "."):
                        return f"is_empty({k // 3}, {k % 3}) is wrong on {board}"
            except BaseException as error:
                return cut(f"its methods raised {type(error).__name__} on {board}", 120)
        return None


def _has(env: Any, name: str) -> bool:
    try:
        return name in object.__getattribute__(env, "__dict__") or hasattr(type(env), name)
    except BaseException:
        return False


def _attributes(env: Any) -> list[tuple[str, Any]]:
    try:
        return [(str(n), v) for n, v in object.__getattribute__(env, "__dict__").items()]
    except BaseException:
        return []


def own_world(ns: Any, renames: Mapping[str, str]) -> tuple[Own | None, str]:
    """The student's Environment as a world (None where there is none, or it cannot be
    played on), and why not (a reason in words, "" where there is no Environment)."""
    try:
        cls = ns.Environment
    except BaseException:
        return None, ""
    if not inspect.isclass(cls):
        return None, ""
    world = Own(cls, renames)
    why = world.check()
    return (None, why) if why else (world, "")
