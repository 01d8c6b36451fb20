"""The proof search's table belongs to one board and holds facts: many proofs may share it."""

from __future__ import annotations

import numpy as np
import pytest

from tttlab.errors import TttlabError
from tttlab.game import Geometry, Position
from tttlab.solvers import solve_table
from tttlab.solvers.bitboard import prove
from tttlab.solvers.prooftable import ProofTable, ProofTableBoardError


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


def test_a_proof_table_belongs_to_one_board() -> None:
    """4x4k4 is a draw alone; after 4x4k3 had used its table it proved a win for X. Now the
    table refuses the second board, and the first board's value stands."""
    alone = prove(Position.initial(Geometry(4, 4, 4)), table_bits=16).value
    assert alone == 0
    shared = ProofTable(16)
    assert prove(Position.initial(Geometry(4, 4, 4)), table=shared).value == alone
    with pytest.raises(ProofTableBoardError, match="holds 4x4k4's proofs, not 4x4k3's"):
        prove(Position.initial(Geometry(4, 4, 3)), table=shared)
    assert isinstance(ProofTableBoardError("x"), TttlabError)
    assert prove(Position.initial(Geometry(4, 4, 4)), table=shared).value == alone
    other = ProofTable(16)
    assert prove(Position.initial(Geometry(4, 4, 3)), table=other).value == 1
    with pytest.raises(ProofTableBoardError):
        prove(Position.initial(Geometry(4, 4, 4)), table=other)


def test_a_cleared_table_is_empty_and_any_boards_again() -> None:
    table = ProofTable(12)
    assert table.slots == 1 << 12
    assert table.rows.shape == (1 << 12, ProofTable.SLOT_BYTES // 8)
    prove(Position.initial(Geometry(3, 4, 3)), table=table)
    assert table.entries > 0
    assert table.geometry == Geometry(3, 4, 3)
    table.clear()
    assert (table.entries, table.geometry) == (0, None)
    assert not table.rows[:, 2].any()
    assert prove(Position.initial(Geometry(4, 4, 4)), table=table).value == 0
