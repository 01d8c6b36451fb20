"""The Q-learning text's ``Agent`` in the box (seed 003: states are strings of ``"0"`` empty,
``"1"`` X and ``"2"`` O; ``q[state][action]`` from X's side; the player a bool, True for X),
playing on the student's own ``Board``.

The tables the calls start from are drawn here by :func:`values` and :func:`start`, which
the grader imports and runs itself: it never reads them back from the box. What the box
reports is what the student's code did: the action it chose, the cells a run of calls
picked, the moves it passed to ``Board.play`` and the entries of ``q`` and ``states`` that
differ afterwards from the table it was given.
"""

from __future__ import annotations

import collections
import math
from functools import lru_cache
from typing import Any

from .base import Child, Run, drawn, garbage_of, number, seeded, short, whole

__all__ = ["EMPTY", "QAgentChild", "digits", "layout", "open_cells", "start", "values"]

#: The empty board in the text's digits.
EMPTY = "000000000"
_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
#: The most moves, entries and states one answer lists (the text's episode changes at most
#: 9 entries and adds at most 9 states of at most 9 entries each).
LISTED = {"plays": 30, "changed": 200, "removed": 50, "states": 50}


def digits(board: str) -> str:
    """``"X.O......"`` → ``"102000000"``."""
    return board.replace(".", "0").replace("X", "1").replace("O", "2")


def open_cells(state: str) -> list[int]:
    """The empty cells of a state, in order."""
    return [k for k, c in enumerate(state) if c == "0"]


def _ended(state: str) -> bool:
    won = any(state[a] != "0" and state[a] == state[b] == state[c] for a, b, c in _LINES)
    return won or "0" not in state


@lru_cache(maxsize=1)
def layout() -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Every state reachable from the empty board by legal play (5,478, finished ones too),
    in string order, with its empty cells."""
    seen = {EMPTY}
    todo = [EMPTY]
    while todo:
        state = todo.pop()
        if _ended(state):
            continue
        mark = "1" if state.count("1") == state.count("2") else "2"
        for k in open_cells(state):
            child = state[:k] + mark + state[k + 1 :]
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return tuple((s, tuple(open_cells(s))) for s in sorted(seen))


def values(seed: int, cells: list[int], ties: bool) -> dict[int, float]:
    """A random row of ``q`` for ``cells``: values in [-1, 1), or with ``ties`` only -0.5,
    0 and 0.5 (so that several actions share the best value)."""
    drawn_ = drawn(seed, 9)
    if ties:
        return {c: (math.floor(drawn_[c] * 3) - 1) / 2 for c in cells}
    return {c: 2 * drawn_[c] - 1 for c in cells}


def start(seed: int, leave: float) -> tuple[dict[str, dict[int, float]], set[str]]:
    """The table a learning call starts from: every reachable state's empty cells with
    random values in [-1, 1), and ``states`` to match, less a share ``leave`` of the states
    (never the empty board) for the code to add itself."""
    rows = layout()
    total = sum(len(cells) for _, cells in rows)
    drawn_ = drawn(seed, total + len(rows))
    table: dict[str, dict[int, float]] = {}
    k = 0
    for i, (state, cells) in enumerate(rows):
        if state == EMPTY or drawn_[total + i] >= leave:
            table[state] = {c: 2 * drawn_[k + j] - 1 for j, c in enumerate(cells)}
        k += len(cells)
    return table, set(table)


def _finite(value: Any) -> Any:
    found = number(value)
    return found if found is not None and math.isfinite(found) else garbage_of(value)


def _state(value: Any) -> Any:
    if isinstance(value, str) and len(value) == 9:
        try:
            return str.__str__(value)
        except BaseException:
            pass
    return garbage_of(value)


def _cell(value: Any) -> Any:
    found = whole(value)
    return found if found is not None else garbage_of(value)


def _row(row: Any) -> Any:
    """A row of ``q`` as sorted ``[action, value]`` pairs, or garbage."""
    try:
        items = list(row.items())
    except BaseException:
        return garbage_of(row)
    found = []
    for action, value in items[:17]:
        cell, entry = whole(action), number(value)
        if cell is None or entry is None or not math.isfinite(entry):
            return garbage_of(row)
        found.append([cell, entry])
    return sorted(found) if len(items) <= 16 else garbage_of(row)


def _holds(collection: Any, item: str) -> Any:
    try:
        return bool(item in collection)
    except BaseException:
        return garbage_of(collection)


_MISSING = ["g", "missing"]


def _get(table: Any, key: str) -> Any:
    """``table[key]``, or None when there is none (whatever the student's table does)."""
    try:
        return table[key]
    except BaseException:
        return None


class QAgentChild(Child):
    """``add_state``, ``best_action``, ``choose_action``, ``qlearning(1)`` and ``sarsa(1)``
    of an ``Agent(epsilon, discount, alpha)`` on the student's ``Board``."""

    def put(self, obj: Any, name: str, value: Any) -> None:
        """``obj.name = value``, in the container the student's own code made there (a
        list of states, a defaultdict of rows), so that its own methods work on it."""
        attribute = self.renames.get(name, name)
        mine = getattr(obj, attribute, None)
        try:
            if isinstance(mine, list) and isinstance(value, set):
                value = sorted(value)
            elif isinstance(mine, collections.defaultdict) and isinstance(value, dict):
                value = collections.defaultdict(mine.default_factory, value)
        except BaseException:  # the student's own container: as it is, then
            pass
        setattr(obj, attribute, value)

    def agent(self, epsilon: float, discount: float, alpha: float) -> Any:
        """``Agent(epsilon, discount, alpha)``, with those attributes set as well (under
        the student's names for them)."""
        agent = self.ns.Agent(epsilon, discount, alpha)
        for name, value in (("epsilon", epsilon), ("discount", discount), ("alpha", alpha)):
            self.put(agent, name, value)
        return agent

    def posed(self, board: str, seed: int, ties: bool, epsilon: float) -> tuple[Any, bool]:
        """An agent whose ``State`` is ``board`` and whose ``q`` holds a random row for it,
        and the player to move there."""
        state = digits(board)
        agent = self.agent(epsilon, 0.9, 0.5)
        self.put(agent, "State", self.ns.Board(state))
        self.put(agent, "q", {state: values(seed, open_cells(state), ties)})
        self.put(agent, "states", {state})
        return agent, board.count("X") == board.count("O")

    def call(self, function: str, case: Any, run: Run) -> list[Any]:
        if function == "add_state":
            return run(self.add_state, *case)
        if function in ("qlearning", "sarsa"):
            return self.encoded(run(self.learn, function, *case), self.learned)
        board, seed, ties, epsilon, calls = case

        def choose() -> Any:
            agent, player = self.posed(board, seed, ties, epsilon)
            method = self.at(agent, function)
            seeded(seed)
            if not calls:
                return _cell(method(player))
            counts, other = [0] * 9, 0
            for _ in range(calls):
                cell = whole(method(player))
                if cell is not None and 0 <= cell < 9:
                    counts[cell] += 1
                else:
                    other += 1
            return [counts, other]

        return run(choose)

    def add_state(self, first: str, second: str) -> list[Any]:
        """Two states added: each row right after its call, the first row after the second
        call, both states in ``states``, and whether the two rows are one dict."""
        one, two = digits(first), digits(second)
        agent = self.agent(0.1, 0.9, 0.5)
        add = self.at(agent, "add_state")
        add(one, open_cells(one))
        row_one = _get(self.at(agent, "q"), one)
        seen_one = _MISSING if row_one is None else _row(row_one)
        add(two, open_cells(two))
        table = self.at(agent, "q")
        row_one, row_two = _get(table, one), _get(table, two)
        seen_two = _MISSING if row_two is None else _row(row_two)
        after = _MISSING if row_one is None else _row(row_one)
        shared = row_one is not None and row_one is row_two
        if not shared and row_one is not None and row_two is not None:
            try:
                row_two[-1] = 7.0  # a mark in the second row must not show in the first
                shared = bool(-1 in row_one)
                del row_two[-1]
            except BaseException:
                pass
        states = self.at(agent, "states")
        return [seen_one, seen_two, after, _holds(states, one), _holds(states, two), shared]

    def learn(
        self, function: str, seed: int, epsilon: float, discount: float, alpha: float, leave: float
    ) -> list[Any]:
        """One episode of ``qlearning(1)`` or ``sarsa(1)`` from the table of :func:`start`,
        with ``Board.play`` logging each move (the board's state before it, the action, the
        player's mark): the moves, and what :meth:`learned` reads."""
        table, states = start(seed, leave)
        agent = self.agent(epsilon, discount, alpha)
        self.put(agent, "q", {state: dict(row) for state, row in table.items()})
        self.put(agent, "states", set(states))
        board = self.ns.Board
        name = self.renames.get("play", "play")
        own, original, play = name in vars(board), vars(board).get(name), getattr(board, name)
        plays: list[Any] = []
        count = [0]

        def logged(this: Any, *args: Any, **kwargs: Any) -> Any:
            count[0] += 1
            if len(plays) < LISTED["plays"]:
                plays.append(self.move(this, args, kwargs))
            return play(this, *args, **kwargs)

        setattr(board, name, logged)
        try:
            seeded(seed)
            self.at(agent, function)(1)
        finally:
            if own:
                setattr(board, name, original)
            else:
                delattr(board, name)
        return [plays, count[0], agent, table, states]

    def move(self, board: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        try:
            before = _state(getattr(board, self.renames.get("state", "state")))
        except BaseException:
            before = ["g", "no state"]
        action = args[0] if args else kwargs.get("action")
        player = args[1] if len(args) > 1 else kwargs.get("player")
        try:
            mark: Any = (
                str.__str__(player) if isinstance(player, str) and len(player) <= 3 else None
            )
        except BaseException:
            mark = None
        return [before, _cell(action), mark if mark is not None else garbage_of(player)]

    def learned(self, found: list[Any]) -> list[Any]:
        """The moves; the entries of ``q`` that are new or differ from the table it was
        given, and those of that table no longer there; the states gained and lost; how
        many of each, and of moves (the lists are cut)."""
        plays, count, agent, table, states = found
        try:
            rows = list(self.at(agent, "q").items())
        except BaseException:
            return ["g", f"q: {short(getattr(agent, self.renames.get('q', 'q'), None))}"]
        try:
            listed = [_state(s) for s in list(self.at(agent, "states"))]
        except BaseException:
            return [
                "g",
                f"states: {short(getattr(agent, self.renames.get('states', 'states'), None))}",
            ]
        changed: list[Any] = []
        kept: dict[str, set[int]] = {}
        for key, row in rows:
            state = _state(key)
            known = table.get(state) if isinstance(state, str) else None
            try:
                items = list(row.items())
            except BaseException:
                changed.append([state, garbage_of(row), ["g", "not a dict"]])
                continue
            cells = kept.setdefault(state, set()) if isinstance(state, str) else set()
            for action, value in items:
                cell, entry = _cell(action), _finite(value)
                if not isinstance(cell, int) or known is None or cell not in known:
                    changed.append([state, cell, entry])
                    continue
                cells.add(cell)
                if entry != known[cell]:
                    changed.append([state, cell, entry])
        removed = [[s, c] for s, row in table.items() for c in row if c not in kept.get(s, ())]
        texts = {s for s in listed if isinstance(s, str)}
        gained = sorted(texts - states) + [s for s in listed if not isinstance(s, str)]
        lost = sorted(states - texts)
        lists = (changed, removed, gained, lost)
        cut = (LISTED["changed"], LISTED["removed"], LISTED["states"], LISTED["states"])
        return [
            plays,
            *(items[:n] for items, n in zip(lists, cut, strict=True)),
            [count, *(len(items) for items in lists)],
        ]
