"""What a learning call of the Q-learning text's ``Agent`` did, in the box (standard library
only): every move it passed to its ``Board.play`` (the board's state before and after, the
cell, and the mark as it was given), and the entries of ``q`` and ``states`` that differ
from the table it was given. The grader judges both (:mod:`tttlab.usercode.exercises.
q_agent_episodes`); nothing here decides what is right.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any

from .base import garbage_of, number, short, whole

__all__ = ["Logged", "changes", "state_of"]

#: The most characters of a mark's repr an answer carries.
MARK = 24


def state_of(value: Any) -> Any:
    """A state as a plain 9-character string, or garbage."""
    if isinstance(value, str) and len(value) == 9:
        try:
            return str.__str__(value)
        except BaseException:
            pass
    return garbage_of(value)


def _cell(value: Any) -> Any:
    found = whole(value)
    return found if found is not None else garbage_of(value)


def _finite(value: Any) -> Any:
    found = number(value)
    return found if found is not None and math.isfinite(found) else garbage_of(value)


class Logged:
    """``Board.play`` (the method ``name`` of ``board``) logged while the ``with`` block
    runs: each move as ``[state before, cell, mark, state after]`` (``state`` read under
    the student's name for it), the first ``cap`` of them, and how many there were."""

    def __init__(self, board: Any, name: str, state: str, cap: int) -> None:
        self.board, self.name, self.state, self.cap = board, name, state, cap
        self.plays: list[list[Any]] = []
        self.count = 0

    def _read(self, board: Any) -> Any:
        try:
            return state_of(getattr(board, self.state))
        except BaseException:
            return ["g", "no state"]

    def __enter__(self) -> Logged:
        board, name = self.board, self.name
        self.own, self.original = name in vars(board), vars(board).get(name)
        play: Callable[..., Any] = getattr(board, name)

        def logged(this: Any, *args: Any, **kwargs: Any) -> Any:
            self.count += 1
            if len(self.plays) >= self.cap:
                return play(this, *args, **kwargs)
            action = args[0] if args else kwargs.get("action")
            mark = args[1] if len(args) > 1 else kwargs.get("player")
            move = [self._read(this), _cell(action), short(mark)[:MARK]]
            self.plays.append(move)
            found = play(this, *args, **kwargs)
            move.append(self._read(this))
            return found

        setattr(board, name, logged)
        return self

    def __exit__(self, *_: object) -> None:
        if self.own:
            setattr(self.board, self.name, self.original)
        else:
            delattr(self.board, self.name)
        for move in self.plays:
            if len(move) == 3:  # its play raised: no state after it
                move.append(["g", "play raised"])


def changes(
    rows: list[Any],
    listed: list[Any],
    table: dict[str, dict[int, float]],
    states: AbstractSet[str],
    cut: dict[str, int],
) -> list[Any]:
    """The entries of ``q`` (its ``rows``) that are new or differ from ``table``, and those
    of ``table`` no longer there; the states (``listed``) gained and lost; each list cut
    as ``cut`` says, and how many of each there were."""
    changed: list[Any] = []
    kept: dict[str, set[int]] = {}
    untouched: set[str] = set()
    for key, row in rows:
        state = state_of(key)
        known = table.get(state) if isinstance(state, str) else None
        if known is not None and type(row) is dict and row == known:  # most rows
            untouched.add(state)
            continue
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
    removed = [
        [s, c]
        for s, row in table.items()
        if s not in untouched
        for c in row
        if c not in kept.get(s, ())
    ]
    texts = {s for s in listed if isinstance(s, str)}
    gained = sorted(texts - states) + [s for s in listed if not isinstance(s, str)]
    lost = sorted(states - texts)
    lists: tuple[list[Any], ...] = (changed, removed, gained, lost)
    cuts = (cut["changed"], cut["removed"], cut["states"], cut["states"])
    return [
        *(items[:n] for items, n in zip(lists, cuts, strict=True)),
        [len(items) for items in lists],
    ]
