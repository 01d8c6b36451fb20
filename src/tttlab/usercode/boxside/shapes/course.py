"""The course's ``Environment`` class in the box (seeds 000 and 001: ``board`` a 3×3 numpy
array, ``x = -1``, ``o = 1``, 0 empty), and its helpers ``get_state_hash_and_winner`` and
``initialV_x`` / ``initialV_o`` (or the course's ``initialV_0``)."""

from __future__ import annotations

from typing import Any

from .base import Child, Run, garbage_of, number, short, truth_of, whole

__all__ = ["CourseChild"]


class CourseChild(Child):
    """The course's Environment (x = -1, o = 1 on a numpy board)."""

    def env(self, board: str | None = None) -> Any:
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
                ended = self.at(env, "game_over")(force_recalculate=True)
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
                self.at(env, "game_over")(force_recalculate=True)
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
            target = getattr(ns, function, None)
            if target is None:
                target = ns.initialV_0
            env = self.env()
            symbols = {"X": self.at(env, "x"), "O": self.at(env, "o"), ".": None}
            triples = [(s, symbols[w], bool(e)) for s, w, e in case]
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
