""":mod:`tttlab.usercode.boxside.shapes.td_table`: the table a TD agent is given comes in the
container its own code makes, and what its update changed is read back at the table's own
precision (a float32 table changes no entry by holding the drawn values rounded), while any
real change, a NaN, a key that is no state or a missing one still shows."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from tttlab.usercode.boxside.shapes.base import drawn
from tttlab.usercode.boxside.shapes.standin import SIZE
from tttlab.usercode.boxside.shapes.td_table import Tables

SEED = 7


def test_the_course_gets_a_float64_array_and_overrides_are_set_over_it() -> None:
    table = Tables().made(SEED, [[5, 1.0]])
    assert isinstance(table, np.ndarray)
    assert table.dtype == np.float64
    assert table[5] == 1.0
    assert table[6] == drawn(SEED, SIZE)[6]
    assert Tables().kind(table) == ""


def test_a_mapping_agent_gets_a_dict_and_a_list_agent_a_list() -> None:
    tables = Tables()
    as_dict = tables.made(SEED, mapping=True)
    assert type(as_dict) is dict
    assert len(as_dict) == SIZE
    assert tables.kind(as_dict) == "dict"
    as_list = tables.made(SEED, like=[0.5] * 3)
    assert type(as_list) is list
    assert as_list == drawn(SEED, SIZE)


def test_a_defaultdict_keeps_its_default() -> None:
    like: defaultdict[int, float] = defaultdict(lambda: 0.25)
    table = Tables().made(SEED, like=like)
    assert type(table) is defaultdict
    assert table[SIZE + 1] == 0.25
    assert table is not like


def test_a_float32_column_is_given_as_one() -> None:
    like = np.zeros((SIZE, 1), dtype=np.float32)
    table = Tables().made(SEED, [[3, 1.0]], like=like)
    assert table.shape == (SIZE, 1)
    assert table.dtype == np.float32
    assert table[3, 0] == 1.0


def test_without_numpy_the_table_is_a_list() -> None:
    tables = Tables(lambda: None)
    assert type(tables.made(SEED)) is list
    assert tables.changes(tables.made(SEED), SEED) == ([], "")


def test_a_change_is_read_back_in_state_order() -> None:
    tables = Tables()
    table = tables.made(SEED)
    table[10], table[2] = 0.5, float("nan")
    found, precision = tables.changes(table, SEED)
    assert precision == ""
    assert found[0] == [2, pytest.approx(float("nan"), nan_ok=True)]
    assert found[1] == [10, 0.5]


def test_a_float32_table_is_read_at_its_own_precision() -> None:
    tables = Tables()
    table = tables.made(SEED).astype(np.float32)
    assert tables.changes(table, SEED) == ([], "float32")  # rounded, not changed
    table[100] = np.float32(0.125)
    assert tables.changes(table, SEED) == ([[100, 0.125]], "float32")
    assert tables.precision(table) == "float32"


def test_entries_of_lower_precision_in_a_list_are_read_at_theirs() -> None:
    tables = Tables()
    table = [np.float16(v) for v in drawn(SEED, SIZE)]
    assert tables.changes(table, SEED) == ([], "float16")
    table[0] = np.float16(0.5) if table[0] != np.float16(0.5) else np.float16(0.25)
    found, _ = tables.changes(table, SEED)
    assert [s for s, _ in found] == [0]
    assert tables.precision(table) == "float16"
    assert tables.precision(tables.made(SEED, mapping=True)) == ""


def test_a_dict_table_shows_a_key_that_is_no_state_and_misses_none() -> None:
    tables = Tables()
    table = tables.made(SEED, mapping=True)
    table[SIZE + 3] = 0.5
    assert tables.changes(table, SEED) == ([[SIZE + 3, 0.5]], "")
    table["X........"] = 0.5
    found, _ = tables.changes(table, SEED)
    assert found[0] == "g"
    del table["X........"], table[0]
    assert tables.changes(table, SEED) == (["g", "V has no entry for state 0"], "")


@pytest.mark.parametrize(
    ("table", "why"),
    [
        ([0.5] * 9, "V has 9 entries, not 19683"),
        (["half"] * SIZE, "V[0] = 'half'"),
        (object(), "V cannot be read: TypeError"),
    ],
    ids=["short", "not-numbers", "no-table"],
)
def test_a_table_that_cannot_be_read_is_no_answer(table: object, why: str) -> None:
    assert Tables().changes(table, SEED) == (["g", why], "")
