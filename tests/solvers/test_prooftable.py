"""The proof search's table belongs to one board and holds facts: many proofs may share it."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tttlab.errors import TttlabError
from tttlab.game import Geometry, Position
from tttlab.solvers import solve_table
from tttlab.solvers.bitboard import SearchTooLarge, prove
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


def test_a_shared_table_is_one_table_for_every_process_that_opens_it(tmp_path: Path) -> None:
    g = Geometry(4, 4, 4)
    path = tmp_path / "table"
    first = ProofTable.shared(path, 12, g)
    second = ProofTable.shared(path, 12, g)
    assert first.slots == second.slots == 1 << 12
    assert first.geometry == g
    assert first.path == path
    proof = prove(Position.initial(g), table=first)
    assert (second.rows == first.rows).all()
    assert second.rows[:, 2].any()
    again = prove(Position.initial(g), table=second)  # the root's children: all probes
    assert again.value == proof.value
    assert again.nodes < proof.nodes
    second.clear()  # everyone's entries, but the file stays 4x4k4's
    assert not first.rows[:, 2].any()
    assert second.geometry == g


def test_a_shared_tables_file_is_checked_before_it_is_used(tmp_path: Path) -> None:
    path = tmp_path / "table"
    ProofTable.shared(path, 10, Geometry(4, 4, 4))
    with pytest.raises(ProofTableBoardError, match="holds 4x4k4's proofs, not 4x4k3's"):
        ProofTable.shared(path, 10, Geometry(4, 4, 3))
    with pytest.raises(TttlabError, match=r"not a proof table of 2\*\*11 slots"):
        ProofTable.shared(path, 11, Geometry(4, 4, 4))
    other = tmp_path / "other"
    other.write_bytes(b"\0" * path.stat().st_size)
    with pytest.raises(TttlabError, match=r"is not a proof table$"):
        ProofTable.shared(other, 10, Geometry(4, 4, 4))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other", "table"]  # nothing aside


def test_a_shared_table_that_cannot_be_made_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = Geometry(4, 4, 4)
    with pytest.raises(TttlabError, match=r"cannot open the proof table .*: No such file"):
        ProofTable.shared(tmp_path / "no" / "table", 10, g)
    with pytest.raises(TttlabError, match=r"cannot open the proof table .*: Is a directory"):
        ProofTable.shared(tmp_path, 10, g)

    def full(descriptor: int, offset: int, size: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    made = tmp_path / "made"
    ProofTable.shared(made, 10, g)
    assert made.stat().st_mode & 0o777 == 0o600
    sparse = tmp_path / "sparse"  # a table's file made elsewhere, its room not taken
    with open(sparse, "wb") as out:
        out.write(ProofTable.SHARED_MAGIC + g.name.encode())
        out.truncate(made.stat().st_size)
    sparse.chmod(0o600)
    # a memory file system too small: said when the file is made or opened, not as a bus
    # error half-way through a search
    monkeypatch.setattr(os, "posix_fallocate", full, raising=False)
    with pytest.raises(TttlabError, match="No space left on device"):
        ProofTable.shared(tmp_path / "table", 10, g)
    with pytest.raises(TttlabError, match="No space left on device"):
        ProofTable.shared(sparse, 10, g)
    assert ProofTable.shared(made, 10, g).slots == 1 << 10  # its room taken when made
    assert sorted(p.name for p in tmp_path.iterdir()) == ["made", "sparse"]  # none half-made


def test_a_shared_table_others_may_write_is_not_trusted(tmp_path: Path) -> None:
    """Its entries are taken as facts: a file that another user may have written is not."""
    g = Geometry(4, 4, 4)
    path = tmp_path / "table"
    ProofTable.shared(path, 10, g)
    for mode in (0o666, 0o620):
        path.chmod(mode)
        with pytest.raises(TttlabError, match="not a proof table to trust"):
            ProofTable.shared(path, 10, g)


def test_a_proof_table_has_a_bucket_at_least() -> None:
    for bits in (0, -1, 41, 1.5, True):
        with pytest.raises(ValueError, match=f"1 <= bits <= 40, not {bits!r}"):
            ProofTable(bits)  # type: ignore[arg-type]
    assert ProofTable(1).slots == 2


def test_a_stopped_search_leaves_a_shared_tables_entries(tmp_path: Path) -> None:
    """Other processes' searches are using them (and every entry is a fact)."""
    g = Geometry(5, 5, 4)
    table = ProofTable.shared(tmp_path / "table", 16, g)
    prove(Position.from_string("X.O../.X.../..O../...../.....", g), table=table)
    held = table.rows.copy()
    with pytest.raises(SearchTooLarge):
        prove(Position.initial(g), table=table, node_budget=2_000)
    assert table.rows[:, 2].any()
    assert table.geometry == g
    assert (held[:, 2] != 0).sum() <= (table.rows[:, 2] != 0).sum()


#: A process that proves positions with the shared table, as a Ray task does; its values out.
WORKER = """
import json, sys
from tttlab.game import Geometry, Position
from tttlab.solvers.bitboard import SearchTooLarge, prove
from tttlab.solvers.prooftable import ProofTable
g = Geometry.parse(sys.argv[2])
table = ProofTable.shared(sys.argv[1], 9, g)
print(json.dumps([prove(Position.from_string(p, g), table=table).value for p in sys.argv[3:]]))
"""


def test_processes_sharing_a_table_while_they_search_get_its_values(tmp_path: Path) -> None:
    """Two processes prove the same positions at once in a small shared table, so that they
    overwrite each other's entries and read entries being written: every value is the one a
    table of its own gives."""
    g = Geometry(5, 5, 4)
    rng = np.random.default_rng(3)
    positions = []
    while len(positions) < 150:  # about a second of search each
        p = Position.initial(g)
        for _ in range(int(rng.integers(1, 7))):
            if not p.is_terminal:
                p = p.apply(int(rng.choice(p.legal_moves)))
        if not p.is_terminal:
            positions.append(p.to_string())
    expected = [prove(Position.from_string(p, g), table_bits=16).value for p in positions]
    path = str(tmp_path / "table")
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, path, g.name, *order],
            stdout=subprocess.PIPE,
            text=True,
        )
        for order in (positions, positions[::-1])
    ]
    found = [json.loads(worker.communicate(timeout=120)[0]) for worker in workers]
    assert [w.returncode for w in workers] == [0, 0]
    assert found == [expected, expected[::-1]]
