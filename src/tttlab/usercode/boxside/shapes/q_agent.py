"""The Q-learning text's ``Agent`` in the box (seed 003: states are strings of ``"0"`` empty,
``"1"`` X and ``"2"`` O; ``q[state][action]`` from X's side; the player a bool, True for X),
playing on the student's own ``Board``.

The agent is built as its own constructor takes epsilon, discount and alpha
(:mod:`.q_agent_built`); the tables the calls start from are drawn by
:mod:`.q_agent_tables`, which the grader imports and runs itself: it never reads them back
from the box. What the box reports is what the student's code did: the action it chose,
the cells a run of calls picked, the moves it passed to ``Board.play`` and the entries of
``q`` and ``states`` that differ afterwards from the table it was given
(:mod:`.q_agent_record`).
"""

from __future__ import annotations

import collections
import math
from typing import Any

from .base import Child, Run, garbage_of, number, seeded, short, whole
from .building import NotBuilt
from .q_agent_built import PROBE, Making, again, make, noted, unbuilt
from .q_agent_record import Logged, changes, state_of
from .q_agent_tables import EMPTY, Drawn, digits, layout, listed, open_cells, start, values

__all__ = [
    "EMPTY",
    "Drawn",
    "QAgentChild",
    "digits",
    "layout",
    "listed",
    "open_cells",
    "start",
    "values",
]


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
    """``add_state``, ``best_action``, ``choose_action``, ``qlearning(n)`` and ``sarsa(n)``
    of the student's ``Agent`` on its ``Board``."""

    #: How the first agent was built, for the next ones.
    making: Making | None = None

    def prepare(self) -> dict[str, Any] | None:
        """The agent built once before the calls: the one problem that it cannot be built
        (``{"problem": ...}``), or a note of how it was when that was not the text's way
        (``{"notes": [...]}``), or None. What its constructor raises is left to the calls,
        which report it as theirs."""
        cls = self.ns.Agent
        try:
            making = make(cls, self.renames, PROBE)
        except NotBuilt as error:
            return {"problem": unbuilt(cls, error)}
        except BaseException:
            return None
        self.making = making
        try:
            note = noted(cls, making)
        except BaseException:  # a name or a repr of the student's that cannot be read
            return None
        return {"notes": [note]} if note else None

    def put(self, obj: Any, name: str, value: Any) -> None:
        """``obj.name = value``, in the container the student's own code made there (a
        list of states, a dict whose keys are the states, a defaultdict of rows), so that
        its own methods work on it."""
        attribute = self.renames.get(name, name)
        mine = getattr(obj, attribute, None)
        try:
            if isinstance(mine, list) and isinstance(value, set):
                value = sorted(value)
            elif type(mine) is dict and isinstance(value, set):  # states as a dict's keys
                value = dict.fromkeys(sorted(value), next(iter(mine.values()), True))
            elif isinstance(mine, collections.defaultdict) and isinstance(value, dict):
                value = collections.defaultdict(mine.default_factory, value)
        except BaseException:  # the student's own container: as it is, then
            pass
        setattr(obj, attribute, value)

    def agent(self, epsilon: float, discount: float, alpha: float) -> Any:
        """The student's ``Agent`` with epsilon, discount and alpha, built as its own
        constructor takes them (:func:`.q_agent_built.make`), the way the first one was."""
        values = (epsilon, discount, alpha)
        if self.making is None:
            self.making = make(self.ns.Agent, self.renames, values)
            return self.making.done.obj
        return again(self.ns.Agent, self.renames, self.making, values)

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
                value = method(player)
                found = whole(value)
                return found if found is not None else garbage_of(value)
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
        self,
        function: str,
        seed: int,
        epsilon: float,
        discount: float,
        alpha: float,
        leave: float,
        episodes: int,
    ) -> list[Any]:
        """``qlearning(episodes)`` or ``sarsa(episodes)`` from the table of :func:`start`,
        with ``Board.play`` logged: the moves, and what :meth:`learned` reads."""
        table, states = start(seed, leave)
        agent = self.agent(epsilon, discount, alpha)
        self.put(agent, "q", {state: dict(row) for state, row in table.items()})
        self.put(agent, "states", set(states))
        name, state = (self.renames.get(n, n) for n in ("play", "state"))
        with Logged(self.ns.Board, name, state, listed(episodes)["plays"]) as log:
            seeded(seed)
            self.at(agent, function)(episodes)
        return [log.plays, log.count, agent, table, states, episodes]

    def learned(self, found: list[Any]) -> list[Any]:
        """The moves; the entries of ``q`` that are new or differ from the table it was
        given, and those of that table no longer there; the states gained and lost; how
        many of each, and of moves (the lists are cut)."""
        plays, count, agent, table, states, episodes = found
        try:
            rows = list(self.at(agent, "q").items())
        except BaseException:
            return ["g", f"q: {short(getattr(agent, self.renames.get('q', 'q'), None))}"]
        try:
            listing = [state_of(s) for s in list(self.at(agent, "states"))]
        except BaseException:
            return [
                "g",
                f"states: {short(getattr(agent, self.renames.get('states', 'states'), None))}",
            ]
        *lists, totals = changes(rows, listing, table, states, listed(episodes))
        return [plays, *lists, [count, *totals]]
