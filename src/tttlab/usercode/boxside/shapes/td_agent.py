"""The course's TD(0) ``Agent`` and ``play_game`` in the box (seeds 000/001).

The student's agent plays on the student's own ``Environment`` where there is one that
counts a few boards as the course does (:mod:`.world`: tttlab sets and reads its board);
otherwise on a stand-in for the course's (:mod:`.standin`), with the student's own
Environment behind it for what that class adds (:mod:`.ownenv`). ``play_game`` is always
played on the stand-in. The agent is made as its own
constructor reads and given its table and symbol as its class takes them (:mod:`.td_making`);
its value table is drawn from the case's seed, as the grader draws it (:mod:`.td_table`).
What comes back is what the student's code did: the entries of the table it changed, the
cells it marked, the calls ``play_game`` made on two recording agents (:mod:`.spies`),
and the ways the agent was made that are not the text's. The grader judges them.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..schema import cut
from .base import Child, Run, seeded, short
from .building import NotBuilt
from .ownenv import Played
from .spies import Enough, Spy
from .standin import ENVIRONMENT, SIZE, numpy_here, text
from .td_making import Made, Maker, agent_class
from .td_notes import worded
from .td_table import Tables
from .world import Own, own_world

__all__ = ["SIZE", "TDAgentChild"]

#: The most changed entries of the table an answer lists (a right update changes at most 9).
CHANGES = 24
#: The most names of the student's Environment an answer says the agent reads.
ADDITIONS = 6


def _lengths(agent: Any) -> dict[str, int]:
    """The length of each of the agent's attributes that has one."""
    found: dict[str, int] = {}
    try:
        items = list(object.__getattribute__(agent, "__dict__").items())
    except BaseException:
        return found
    for name, value in items:
        try:
            found[str(name)] = len(value)
        except BaseException:
            continue
    return found


class TDAgentChild(Child):
    """The course's Agent on the stand-in Environment; ``play_game`` with two spies."""

    np: Any = False  # not looked up yet
    _tables: Tables | None = None
    _played: Played | None = None
    _maker: Maker | None = None
    _world: tuple[Own | None, str] | None = None

    def numpy(self) -> Any:
        if self.np is False:
            self.np = numpy_here()
        return self.np

    @property
    def tables(self) -> Tables:
        if self._tables is None:
            self._tables = Tables(self.numpy)
        return self._tables

    def played(self) -> Played:
        """What makes the environments: the stand-in, and the student's Environment."""
        if self._played is None:
            aliases = {self.renames[n]: n for n in ENVIRONMENT if n in self.renames}
            try:
                theirs = self.ns.Environment
            except BaseException:
                theirs = None
            self._played = Played(self.numpy(), theirs, aliases)
        return self._played

    def world(self) -> Own | None:
        """The student's own Environment, where it can be played on (:mod:`.world`)."""
        if self._world is None:
            self._world = own_world(self.ns, self.renames)
        return self._world[0]

    def standin(self, board: str = "." * 9) -> Any:
        """The stand-in (with the student's additions, :mod:`.ownenv`) holding ``board``."""
        env = self.played().fresh()
        _put_standin(env, board)
        return env

    def env(self, board: str = "." * 9) -> Any:
        """An environment holding ``board``: the student's own where it can be played on,
        else the stand-in."""
        world = self.world()
        if world is None:
            return self.standin(board)
        env = world.fresh()
        world.put(env, board)
        return env

    def put(self, env: Any, board: str) -> None:
        world = self.world()
        if world is None:
            _put_standin(env, board)
        else:
            world.put(env, board)

    def read(self, env: Any) -> str:
        world = self.world()
        return text(env) if world is None else world.read(env)

    def symbol(self, env: Any, seat: str) -> Any:
        world = self.world()
        if world is not None:
            return world.symbol(env, seat)
        return env.x if seat == "X" else env.o

    def seats(self) -> tuple[Any, Any]:
        env = self.env()
        return self.symbol(env, "X"), self.symbol(env, "O")

    def maker(self) -> Maker:
        if self._maker is None:
            self._maker = Maker(self.ns, self.renames, self.tables, self.env, self.seats)
        return self._maker

    def prepare(self) -> dict[str, Any] | None:
        """The agent made once before the calls: the one problem that it cannot be made
        (``{"problem": ...}``: the constructor and the ``--name`` to paste, not a wrong
        answer per call), or the notes on each way it was made or played that is not the
        text's (``{"notes": [...]}``), or None. What its own code raises is left to the
        calls, which report it as theirs."""
        try:
            agent_class(self.ns)
        except AttributeError:  # not defined: the worker says so
            return None
        try:
            env = self.env()
            x, o = self.seats()
            self.maker().make(0.1, 0.5, o, 0)  # both seats built before any board
            made = self.maker().make(0.1, 0.5, x, 0)
            forms = self.maker().seat_values()
            agent = made.agent
            ways = made.ways + self.ways(agent, self.tables.precision(self.held(made)))
            before = _lengths(agent)
            self.feeder(agent)(self.at(env, "get_state")())
            kept = self.history(agent, before, 1)
        except NotBuilt as error:
            return {"problem": str(error)}
        except BaseException:
            return None
        if kept != self.renames.get("state_history", "state_history"):
            ways.append(f"history:{kept}")
        notes = worded(ways)
        return {"notes": notes, "making": [made.making, *forms]}

    @staticmethod
    def held(made: Made) -> Any:
        """The table the agent holds now (the one it was given, where it cannot be found)."""
        try:
            return getattr(made.agent, made.where) if made.where else made.table
        except BaseException:
            return made.table

    def ways(self, agent: Any, precision: str) -> list[str]:
        """What a note says beyond the agent's making: the student's Environment's own
        names that the agent reads, and the table's precision below float64."""
        found = []
        world = self.world()
        if world is not None:
            found.append(f"world:{world.call}:{world.board}")
            return found + ([f"float:{precision}"] if precision else [])
        why = self._world[1] if self._world else ""
        found += [f"worldwhy:{why}"] if why else []
        played = self.played()
        read = self.maker().reads(type(agent)) & set(played.additions)
        if read:
            found.append("env:" + ",".join(sorted(read)[:ADDITIONS]))
            found += [f"envinit:{played.init}"] if played.init else []
            found += [f"envwhy:{why}" for why in played.why[:1]]
        return found + ([f"float:{precision}"] if precision else [])

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

    def history(self, agent: Any, before: dict[str, int], fed: int) -> str:
        """The attribute that holds the agent's history: the student's name for it, the
        course's, else the one attribute that grew by one entry a state fed."""
        if "state_history" in self.renames:
            return self.renames["state_history"]
        after = _lengths(agent)
        if "state_history" in after:
            return "state_history"
        grown = sorted(n for n, k in after.items() if k - before.get(n, 0) == fed)
        return grown[0] if len(grown) == 1 else "state_history"

    def call(self, function: str, case: Any, run: Run) -> list[Any]:
        if function == "update":
            return run(self.update, *case)
        if function == "take_action":
            return run(self.take_action, *case)
        return run(self.play_game, case)

    def update(self, moves: list[int], seat: str, seed: int, alpha: float) -> Any:
        """Feed a game's states (after every move) to a fresh agent, call ``update(env)`` on
        the final board: ``[[state, value] changed, how many changed, len(state_history),
        the table's precision]`` (the entries of the history's states first, then the
        others, in state order; the precision "" for float64, else "float32"...)."""
        env = self.env()
        made = self.maker().make(0.1, alpha, self.symbol(env, seat), seed)
        agent = made.agent
        feed, fed, before = self.feeder(agent), set(), _lengths(agent)
        board = ["."] * 9
        for k, cell in enumerate(moves):
            board[cell] = "X" if k % 2 == 0 else "O"
            self.put(env, "".join(board))
            state = self.at(env, "get_state")()
            fed.add(state)
            feed(state)
        kept = self.history(agent, before, len(moves))
        self.at(env, "game_over")()  # as play_game's loop leaves it: winner and ended set
        self.at(agent, "update")(env)
        changed, precision = self.tables.changes(self.held(made), seed)
        try:
            history: Any = len(getattr(agent, kept))
        except BaseException as error:
            history = ["g", cut(f"{type(error).__name__}: {short(error)}", 80)]
        if changed[:1] == ["g"]:
            return changed
        changed.sort(key=lambda entry: entry[0] not in fed)  # the history's states first
        return [changed[:CHANGES], len(changed), history, precision]

    def take_action(
        self, board: str, seed: int, eps: float, calls: int, overrides: list[list[Any]]
    ) -> Any:
        """``calls`` calls of ``take_action`` on fresh copies of ``board``, the global random
        generators seeded from ``seed``: ``[count per cell, calls that did not mark one
        empty cell, the first such board after, the table's precision]``."""
        env = self.env(board)
        mark = "X" if board.count("X") == board.count("O") else "O"
        made = self.maker().make(eps, 0.5, self.symbol(env, mark), seed, overrides)
        act = self.at(made.agent, "take_action")
        precision = self.tables.precision(self.held(made))
        seeded(seed)
        counts, bad, first = [0] * 9, 0, ""
        for _ in range(calls):
            env = self.env(board)
            act(env)
            after = self.read(env)
            diff = [k for k in range(9) if after[k] != board[k]]
            if len(diff) == 1 and board[diff[0]] == "." and after[diff[0]] == mark:
                counts[diff[0]] += 1
            else:
                bad += 1
                first = first or after
        return [counts, bad, first, precision]

    def _own_method(self, name: str) -> Any:
        """The student's agent's own method ``name`` (None: no agent, or none such)."""
        try:
            return getattr(agent_class(self.ns)[0], name, None)
        except BaseException:
            return None

    def play_game(self, seed: int) -> Any:
        """``play_game(p1, p2, env)`` with two spies on a fresh stand-in: ``[the calls it
        made on them, whether it was stopped for making too many]``."""
        env = self.standin()
        log: list[Any] = []
        spies = [Spy(1, env.x, seed, env, log), Spy(2, env.o, seed, env, log)]
        for spy in spies:
            for name in ("take_action", "update_state_history", "update"):
                theirs = self.renames.get(name, name)
                method = _as_theirs(getattr(spy, name), self._own_method(theirs))
                if theirs != name or method is not getattr(spy, name):
                    setattr(spy, theirs, method)
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
        except Enough:
            return [log, True]
        return [log, False]


def _put_standin(env: Any, board: str) -> None:
    """Set every cell of the stand-in's board to ``board`` ("X.O......")."""
    for k, c in enumerate(board):
        env.board[k // 3, k % 3] = env.x if c == "X" else env.o if c == "O" else 0


def _as_theirs(ours: Any, theirs: Any) -> Any:
    """A recording agent's method ``ours`` that takes what the student's own agent's
    method ``theirs`` takes (``take_action(env, show_values=False)``): the extra
    arguments are bound to the student's signature (a call it refuses raises its
    ``TypeError``) and left out of ours. ``ours`` itself where ``theirs`` takes no more."""
    try:
        signature = inspect.signature(theirs)
    except (TypeError, ValueError):
        return ours
    if len(signature.parameters) <= 2 and not any(
        p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature.parameters.values()
    ):
        return ours

    names = list(signature.parameters)

    def method(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(None, *args, **kwargs)  # as the student's agent takes it
        bound.apply_defaults()
        return ours(bound.arguments[names[1]]) if len(names) > 1 else ours(*args)

    return method
