"""The course's ``Environment`` class in the box (seeds 000 and 001: ``board`` a 3×3 numpy
array, ``x = -1``, ``o = 1``, 0 empty), and its helpers ``get_state_hash_and_winner`` and
``initialV_x`` / ``initialV_o`` (or the course's ``initialV_0``)."""

from __future__ import annotations

from typing import Any

from ..schema import said
from .base import Child, Run, garbage_of, number, short, truth_of, whole
from .binding import FLAG, Bound, Helper, Unbound, flag_call, seat_helper
from .world import Own

__all__ = ["CourseChild"]

#: The course's helpers for the initial values, one per seat (or the course's initialV_0).
INITIAL = ("initialV_x", "initialV_o", "initialV_0")


class CourseChild(Child):
    """The course's Environment (x = -1, o = 1 on a numpy board). ``game_over``'s flag is
    passed as the student's signature takes it (:func:`~.binding.flag_call`), and a helper
    that serves both seats stands in for ``initialV_x`` and ``initialV_o``."""

    _flag: Bound | None = None
    _world: list[Own | None] | None = None
    helper: Helper | None = None

    def prepare(self) -> dict[str, Any] | None:
        """The calls bound before any board: the one problem that ``game_over`` cannot be
        called with the flag (or that no Environment can be made), else the notes on each
        way that is not the text's."""
        notes: list[str] = []
        try:
            env = self.ns.Environment
        except BaseException:
            env = None
        if env is not None:
            try:
                made = self.env()
            except BaseException as error:
                return {"problem": f"Environment() raised {said(error)}: no board can be set up"}
            world = self.world()
            if world is not None and (not world.call.endswith("()") or world.board != "board"):
                notes.append(f"your Environment built as {world.call}, its board env.{world.board}")
            try:
                method = self.at(made, "game_over")
            except BaseException:
                method = None
            if method is not None:
                try:
                    self._flag = flag_call(method, self.renames.get(FLAG))
                except Unbound as error:
                    return {"problem": str(error)}
                kind, _, rest = self._flag.how.partition(":")
                if kind == "flag" and FLAG not in self.renames:
                    notes.append(f"game_over's {FLAG} passed as {rest}=True")
                elif kind == "noflag":
                    notes.append(f"{rest} takes no {FLAG}: called with no arguments")
        if not any(self.defined(n) for n in INITIAL):
            self.helper = seat_helper(self.functions())
            if self.helper is not None:
                self.supplied = {"initialV_x", "initialV_o"}
                notes.append(
                    f"initialV_x and initialV_o: your {self.helper.name}, called once per seat "
                    f"as {self.helper.text('x')} and {self.helper.text('o')}"
                )
        return {"notes": notes} if notes else None

    def world(self) -> Own | None:
        """The student's Environment built as its constructor reads, its board found
        (:class:`~.world.Own`); None where it cannot be: ``Environment()`` as the course
        builds it then, and what goes wrong is the student's own."""
        if self._world is None:
            try:
                own = Own(self.ns.Environment, self.renames)
                self._world = [own if own.locate() is None else None]
            except BaseException:
                self._world = [None]
        return self._world[0]

    def recount(self, env: Any) -> Any:
        """``env.game_over(force_recalculate=True)``, as the student's signature takes it."""
        method = self.at(env, "game_over")
        bound = self._flag or Bound((), {FLAG: True}, "")
        return method(*bound.args, **bound.kwargs)

    def env(self, board: str | None = None) -> Any:
        world = self.world()
        if world is not None:
            env = world.fresh()
            if board is not None:
                world.put(env, board)
            return env
        env = self.ns.Environment()
        if board is not None:
            values = {"X": self.at(env, "x"), "O": self.at(env, "o"), ".": 0}
            cells = self.at(env, "board")
            for k, c in enumerate(board):
                cells[k // 3, k % 3] = values[c]
        return env

    def symbol(self, env: Any, value: Any) -> str | None:
        if value is None:
            return "."
        try:
            if value == self.at(env, "x"):
                return "X"
            if value == self.at(env, "o"):
                return "O"
        except BaseException:
            return None
        return None

    @staticmethod
    def integer(value: Any) -> Any:
        found = whole(value)
        return found if found is not None else garbage_of(value)

    def call(self, function: str, case: Any, run: Run) -> list[Any]:
        ns = self.ns
        if function == "get_state":
            outcome = run(lambda: self.at(self.env(case), "get_state")())
            return self.encoded(outcome, self.integer)
        if function == "game_over":

            def game_over() -> Any:
                env = self.env(case)
                ended = self.recount(env)
                return [ended, self.at(env, "winner"), self.at(env, "ended"), env]

            def answer(value: Any) -> Any:
                ended, winner, flag, env = value
                parts = [truth_of(ended), self.symbol(env, winner), truth_of(flag)]
                shown = [short(ended), short(winner), short(flag)]
                return [p if p is not None else ["g", s] for p, s in zip(parts, shown, strict=True)]

            return self.encoded(run(game_over), answer)
        if function == "winner":

            def winner() -> Any:
                env = self.env(case)
                self.recount(env)
                return [env, self.at(env, "winner")]

            def named(value: Any) -> Any:
                return self.symbol(value[0], value[1]) or garbage_of(value[1])

            return self.encoded(run(winner), named)
        if function == "reward":
            board, seat = case

            def reward() -> Any:
                env = self.env(board)
                return self.at(env, "reward")(self.at(env, "x" if seat == "X" else "o"))

            return self.encoded(run(reward), self.integer)
        if function == "get_state_hash_and_winner":
            return self.encoded(
                run(lambda: ns.get_state_hash_and_winner(self.env())), self._triples
            )

        # initialV_x, initialV_o (or the course's initialV_0): called with the states' triples
        def initial() -> Any:
            env = self.env()
            symbols = {"X": self.at(env, "x"), "O": self.at(env, "o"), ".": None}
            triples = [(s, symbols[w], bool(e)) for s, w, e in case]
            if self.helper is not None:  # set only where none of INITIAL is defined
                seat = "x" if function == "initialV_x" else "o"
                return self.helper.call(env, triples, self.at(env, seat))
            target = getattr(ns, function, None)
            if target is None:
                target = ns.initialV_0
            return target(env, triples)

        def values(table: Any) -> Any:
            found = []
            for s, _, _ in case:
                try:
                    entry = table[s]
                except BaseException as error:
                    return ["g", f"V[{s}]: {type(error).__name__}"]
                value = number(entry)
                if value is None:
                    return ["g", f"V[{s}] = {short(entry)}"]
                found.append(value)
            return found

        return self.encoded(run(initial), values)

    def _triples(self, found: Any) -> Any:
        env = self.env()
        try:
            items = list(found)
        except BaseException:
            return garbage_of(found)
        out = []
        for item in items:
            try:
                state, winner, ended = item
            except BaseException:
                return garbage_of(item)
            number, flag, name = whole(state), truth_of(ended), self.symbol(env, winner)
            if number is None or flag is None or name is None:
                return garbage_of(item)
            out.append([number, name, flag])
        return out
