"""The course's TD(0) ``Agent`` and ``play_game`` in the box (seeds 000/001).

The student's agent plays on a stand-in for the course's ``Environment`` (:class:`Environment`:
``x = -1``, ``o = 1``, 0 empty, ``board`` a 3×3 numpy float array when numpy imports here,
else a small grid), never on the student's own (whose bugs the ``course`` shape grades). Its
value table is :func:`~.base.drawn` from the case's seed, as the grader draws it. What comes
back is what the student's code did: the entries of the table it changed, the cells it
marked, the calls ``play_game`` made on two recording agents (:class:`Spy`). The grader
judges them.
"""

from __future__ import annotations

import inspect
import random
from typing import Any

from .base import Child, Run, drawn, number, seeded, short, whole

__all__ = ["ENVIRONMENT", "LINES", "SIZE", "Environment", "Spy", "TDAgentChild", "pick", "spy_game"]

#: The states of a 3×3 board (the course's ``num_states``).
SIZE = 3**9
#: The most changed entries of the table an answer lists (a right update changes at most 9).
CHANGES = 24
#: The most calls ``play_game`` may make on the two recording agents (a game makes 29).
EVENTS = 64
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _numpy() -> Any:
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


#: The names of the course's Environment that the student's agent may read under names of
#: its own (``--name board=tiles``).
ENVIRONMENT = ("board", "x", "o", "winner", "ended", "is_empty", "get_state", "game_over", "reward")


class Environment:
    """The course's ``Environment`` as the course means it (its listing's bugs fixed): the
    stand-in the student's agent plays on. ``aliases`` maps the student's names of its
    attributes to the course's."""

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


def pick(rng: random.Random, board: str) -> int:
    """A recording agent's move: an empty cell drawn by ``rng`` (-1 on a full board)."""
    empty = [k for k, c in enumerate(board) if c == "."]
    return empty[rng.randrange(len(empty))] if empty else -1


class _Enough(BaseException):
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
            raise _Enough
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


class TDAgentChild(Child):
    """The course's Agent on the stand-in Environment; ``play_game`` with two spies."""

    np: Any = False  # not looked up yet
    _tables: dict[int, Any] | None = None

    def numpy(self) -> Any:
        if self.np is False:
            self.np = _numpy()
        return self.np

    def env(self, board: str = "." * 9) -> Environment:
        aliases = {self.renames[n]: n for n in ENVIRONMENT if n in self.renames}
        env = Environment(self.numpy(), aliases)
        for k, c in enumerate(board):
            if c != ".":
                env.board[k // 3, k % 3] = env.x if c == "X" else env.o
        return env

    def base(self, seed: int) -> tuple[list[float], Any]:
        """The table drawn from ``seed``, as a list and in the form the agent gets."""
        tables = self._tables = self._tables if self._tables is not None else {}
        if seed not in tables:
            if len(tables) >= 8:
                tables.clear()
            values = drawn(seed, SIZE)
            np = self.numpy()
            tables[seed] = (values, np.array(values, dtype=np.float64) if np else None)
        return tables[seed]  # type: ignore[no-any-return]

    def table(self, seed: int, overrides: list[list[Any]] | None = None) -> Any:
        values, array = self.base(seed)
        table = array.copy() if array is not None else list(values)
        for s, v in overrides or ():
            table[s] = v
        return table

    def agent(self, eps: float, alpha: float, table: Any, sym: int) -> Any:
        """``Agent(eps, alpha)`` (by keyword, else by position), its table and symbol set."""
        cls = self.ns.Agent
        try:
            agent = cls(eps=eps, alpha=alpha)
        except TypeError:
            agent = cls(eps, alpha)
        self.at(agent, "setV")(table)
        self.at(agent, "set_symbol")(sym)
        return agent

    def feeder(self, agent: Any) -> Any:
        try:
            return self.at(agent, "update_state_history")
        except AttributeError:
            pass
        try:
            return agent.update_state_histories  # the notebook's name
        except AttributeError:
            pass
        raise AttributeError("the agent has no update_state_history (nor update_state_histories)")

    def call(self, function: str, case: Any, run: Run) -> list[Any]:
        if function == "update":
            return run(self.update, *case)
        if function == "take_action":
            return run(self.take_action, *case)
        return run(self.play_game, case)

    def update(self, moves: list[int], seat: str, seed: int, alpha: float) -> Any:
        """Feed a game's states (after every move) to a fresh agent, call ``update(env)`` on
        the final board: ``[[state, value] changed, how many changed, len(state_history)]``
        (the entries of the history's states first, then the others, in state order)."""
        env = self.env()
        table = self.table(seed)
        agent = self.agent(0.1, alpha, table, env.x if seat == "X" else env.o)
        feed, fed = self.feeder(agent), set()
        for k, cell in enumerate(moves):
            env.board[cell // 3, cell % 3] = env.x if k % 2 == 0 else env.o
            fed.add(env.get_state())
            feed(env.get_state())
        env.game_over()  # as play_game's loop leaves it: winner and ended set
        self.at(agent, "update")(env)
        try:
            after = self.at(agent, "V")
        except BaseException:
            after = table
        changed = self.changes(after, seed)
        try:
            history: Any = len(self.at(agent, "state_history"))
        except BaseException as error:
            history = ["g", f"{type(error).__name__}: {short(error)}"[:80]]
        if changed[:1] == ["g"]:
            return changed
        changed.sort(key=lambda entry: entry[0] not in fed)  # the history's states first
        return [changed[:CHANGES], len(changed), history]

    def changes(self, table: Any, seed: int) -> list[Any]:
        """The entries of ``table`` that differ from those drawn from ``seed`` (NaN differs),
        or ``["g", why]`` when the table cannot be read."""
        values, array = self.base(seed)
        np = self.numpy()
        try:
            if np is not None and isinstance(table, np.ndarray) and table.shape == (SIZE,):
                after = table.astype(np.float64)
                rows = np.flatnonzero(~(after == array))
                return [[int(s), float(after[s])] for s in rows]
            if len(table) != SIZE:
                return ["g", f"V has {len(table)} entries, not {SIZE}"]
            found = []
            for s in range(SIZE):
                value = number(table[s])
                if value is None:
                    return ["g", f"V[{s}] = {short(table[s])}"]
                if value != values[s]:  # NaN differs too
                    found.append([s, value])
            return found
        except BaseException as error:
            return ["g", f"V cannot be read: {type(error).__name__}"]

    def take_action(
        self, board: str, seed: int, eps: float, calls: int, overrides: list[list[Any]]
    ) -> Any:
        """``calls`` calls of ``take_action`` on fresh copies of ``board``, the global random
        generators seeded from ``seed``: ``[count per cell, calls that did not mark one
        empty cell, the first such board after]``."""
        table = self.table(seed, overrides)
        env = self.env(board)
        sym = env.x if board.count("X") == board.count("O") else env.o
        agent = self.agent(eps, 0.5, table, sym)
        act = self.at(agent, "take_action")
        seeded(seed)
        mark = "X" if sym == env.x else "O"
        counts, bad, first = [0] * 9, 0, ""
        for _ in range(calls):
            env = self.env(board)
            act(env)
            after = text(env)
            diff = [k for k in range(9) if after[k] != board[k]]
            if len(diff) == 1 and board[diff[0]] == "." and after[diff[0]] == mark:
                counts[diff[0]] += 1
            else:
                bad += 1
                first = first or after
        return [counts, bad, first]

    def play_game(self, seed: int) -> Any:
        """``play_game(p1, p2, env)`` with two spies on a fresh stand-in: ``[the calls it
        made on them, whether it was stopped for making too many]``."""
        env = self.env()
        log: list[Any] = []
        spies = [Spy(1, env.x, seed, env, log), Spy(2, env.o, seed, env, log)]
        for spy in spies:
            for name in ("take_action", "update_state_history", "update"):
                theirs = self.renames.get(name, name)
                if theirs != name:
                    setattr(spy, theirs, getattr(spy, name))
        play = self.ns.play_game
        extra = {}
        try:  # the course's ``draw`` argument, where the student made it required
            found = inspect.signature(play).parameters.get("draw")
            if found is not None and found.default is inspect.Parameter.empty:
                extra["draw"] = False
        except (TypeError, ValueError):  # no signature to read: called as the course calls it
            pass
        try:
            play(spies[0], spies[1], env, **extra)
        except _Enough:
            return [log, True]
        return [log, False]
