"""The compiled proof search: known values of bigger boards, and agreement with the table."""

from __future__ import annotations

import numpy as np
import pytest

from tttlab.game import Geometry, Position, state_space
from tttlab.solvers import solve_table
from tttlab.solvers.bitboard import ProofTable, SearchTooLarge, prove


@pytest.mark.parametrize(
    ("board", "value"),
    [("3x3k3", 0), ("3x4k3", 1), ("4x3k3", 1), ("4x4k3", 1), ("4x4k4", 0), ("4x5k4", 0)],
)
def test_known_values(board: str, value: int) -> None:
    g = Geometry.parse(board)
    assert prove(Position.initial(g), table_bits=22).value == value


@pytest.mark.slow
def test_five_by_five_with_four_in_a_row_is_a_draw() -> None:
    proof = prove(Position.initial(Geometry(5, 5, 4)), table_bits=25)
    assert proof.value == 0
    assert proof.nodes > 1_000_000


def test_agrees_with_the_table_on_every_3x3_position() -> None:
    solution = solve_table(Geometry())
    space = solution.space
    for i in range(space.size):
        assert prove(space.position(i), table_bits=12).value == int(solution.value[i])


def test_agrees_with_the_table_on_3x4_positions() -> None:
    g = Geometry(3, 4, 3)
    solution = solve_table(g)
    rng = np.random.default_rng(0)
    for i in rng.choice(state_space(g).size, size=400, replace=False):
        position = solution.space.position(int(i))
        assert prove(position, table_bits=16).value == int(solution.value[i])


def test_one_table_shared_by_many_proofs_gives_the_tables_values() -> None:
    """Sampled judging proves hundreds of positions of one board with one table: what each
    proof leaves in it must stay true for the next ones, whatever their roots."""
    g = Geometry(3, 4, 3)
    solution = solve_table(g)
    shared = ProofTable(10)  # small: entries get overwritten by other positions' too
    rng = np.random.default_rng(1)
    for i in rng.choice(solution.space.size, size=600, replace=False):
        position = solution.space.position(int(i))
        proof = prove(position, table=shared)
        assert proof.value == int(solution.value[i])
        assert proof.table_slots == (0 if position.is_terminal else 1 << 10)
    assert 0 < shared.entries <= 1 << 10


def test_a_search_stopped_half_way_leaves_no_entries_behind() -> None:
    shared = ProofTable(16)
    with pytest.raises(SearchTooLarge):
        prove(Position.initial(Geometry(4, 4, 4)), node_budget=1000, table=shared)
    assert shared.entries == 0
    assert (shared.keys == -1).all()
    assert prove(Position.initial(Geometry(3, 4, 3)), table=shared).value == 1


def test_refusals() -> None:
    with pytest.raises(SearchTooLarge, match="limited to 25 cells"):
        prove(Position.initial(Geometry(6, 6, 4)))
    with pytest.raises(SearchTooLarge, match="not proved within 100 nodes"):
        prove(Position.initial(Geometry(4, 4, 4)), table_bits=16, node_budget=100)


def test_terminal_positions() -> None:
    assert prove(Position.from_string("XXX/OO./...")).value == 1
    assert prove(Position.from_string("XOX/XOO/OXX")).value == 0
