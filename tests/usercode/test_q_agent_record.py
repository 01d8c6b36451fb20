"""What the box records of a learning call
(:mod:`tttlab.usercode.boxside.shapes.q_agent_record`): each move passed to ``Board.play``
with the state before and after it and the mark as it was given, the class's own method put
back afterwards (or the inherited one uncovered); and the entries of ``q`` and the states that
differ from the table given, untouched rows skipped, the lists cut with their full counts."""

from __future__ import annotations

import contextlib
from typing import Any

from tttlab.usercode.boxside.shapes.q_agent_record import Logged, changes, state_of


class Base:
    def __init__(self) -> None:
        self.state = "000000000"

    def play(self, action: Any, player: Any) -> None:
        if action == 8:
            raise ValueError("no")
        self.state = self.state[:action] + str(int(player) if player in (1, 2) else player)
        self.state += "0" * (9 - len(self.state))


class Child(Base):
    pass


def test_each_move_is_logged_with_the_states_around_it_and_the_method_put_back() -> None:
    own = Base.play
    with Logged(Base, "play", "state", cap=2) as log:
        board = Base()
        board.play(0, "1")
        board.play(action=1, player=2)
        board.play(2, True)  # past the cap: played, counted, not listed
    assert Base.play is own
    assert log.count == 3
    assert log.plays == [
        ["000000000", 0, "'1'", "100000000"],
        ["100000000", 1, "2", "120000000"],
    ]


def test_an_inherited_play_is_uncovered_and_a_raising_play_has_no_state_after() -> None:
    with Logged(Child, "play", "state", cap=5) as log:
        board = Child()
        with contextlib.suppress(ValueError):
            board.play(8, "1")
        board.state = ["not", "a", "state"]  # type: ignore[assignment]
        with contextlib.suppress(TypeError):
            board.play(0, "x" * 40)
    assert "play" not in vars(Child)
    assert Child.play is Base.play
    assert log.plays[0] == ["000000000", 8, "'1'", ["g", "play raised"]]
    assert log.plays[1][0] == ["g", "['not', 'a', 'state']"]
    assert len(log.plays[1][2]) == 24  # a mark's repr, cut


def test_only_what_differs_from_the_table_is_listed() -> None:
    table = {"000000000": {0: 0.5, 4: -0.25}, "100000000": {1: 0.125}, "120000000": {2: 0.0}}
    states = frozenset(table)
    q = {
        "000000000": {0: 0.5, 4: -0.25},  # untouched
        "100000000": {1: 0.375},  # updated
        "102000000": {1: 0.0, 3: 0.0},  # new
        7: {1: float("nan")},  # junk
    }
    listed = ["000000000", "100000000", "102000000", state_of(None)]
    cut = {"changed": 3, "removed": 5, "states": 5}
    changed, removed, gained, lost, totals = changes(list(q.items()), listed, table, states, cut)
    assert changed == [
        ["100000000", 1, 0.375],
        ["102000000", 1, 0.0],
        ["102000000", 3, 0.0],
    ]  # the junk entry counted, cut off
    assert totals == [4, 1, 2, 1]
    assert removed == [["120000000", 2]]
    assert gained == ["102000000", ["g", "None"]]
    assert lost == ["120000000"]
    assert state_of("102000000") == "102000000"
    assert state_of(7) == ["g", "7"]
