"""The tables the Q-learning checks start from
(:mod:`tttlab.usercode.boxside.shapes.q_agent_tables`): every reachable state in the text's
digits, the box's table and the grader's lazily drawn one the same, whichever states are left
out, and the lists an answer may carry big enough for an honest call of that many episodes."""

from __future__ import annotations

from tttlab.usercode.boxside.shapes.q_agent_tables import (
    EMPTY,
    Drawn,
    digits,
    layout,
    listed,
    open_cells,
    start,
    values,
)
from tttlab.usercode.cases import exercise_truth


def test_the_tables_the_box_starts_from_are_drawn_again_by_the_grader() -> None:
    rows = layout()
    assert len(rows) == 5478
    assert {digit for state, _ in rows for digit in state} == {"0", "1", "2"}
    truth = exercise_truth()
    assert {s for s, _ in rows} == {digits(b) for b in truth.boards}
    full, states = start(7, 0.0)
    assert len(full) == len(states) == 5478
    some, fewer = start(7, 0.25)
    assert EMPTY in some
    assert set(some) == fewer
    assert 0.2 < 1 - len(some) / 5478 < 0.3
    for state, row in some.items():
        assert row == full[state]  # the same values, whichever states are left out
        assert list(row) == open_cells(state)
    assert all(-1 <= v < 1 for row in full.values() for v in row.values())
    assert start(7, 0.25) == (some, fewer)
    assert start(8, 0.25) != (some, fewer)
    tied = values(3, list(range(9)), True)
    assert set(tied.values()) <= {-0.5, 0.0, 0.5}


def test_the_grader_reads_the_same_table_row_by_row() -> None:
    some, fewer = start(7, 0.25)
    drawn = Drawn(7, 0.25)
    assert len(drawn) == len(some)
    assert set(drawn) == fewer
    left_out = next(s for s, _ in layout() if s not in fewer)
    assert left_out not in drawn
    assert drawn.get(left_out) is None
    assert EMPTY in drawn
    for state in list(some)[::97]:
        assert drawn[state] == some[state]
    assert dict(drawn.items()) == some


def test_an_answer_lists_room_for_an_honest_call() -> None:
    one, forty = listed(1), listed(40)
    assert one == {"plays": 30, "changed": 200, "removed": 50, "states": 50}
    assert forty["plays"] >= 9 * 40  # at most 9 moves an episode
    assert forty["changed"] >= 9 * 40 + 81 * 3  # 9 updates an episode, new rows at first
    assert forty["states"] >= 9 * 40
