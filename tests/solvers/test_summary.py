"""The summaries of ``ttt solve --json`` (:mod:`tttlab.solvers.summary`): the table's counts
are FACTS.md's, the search's value is the table's, and the proof table is sized by the board
within the memory it is given."""

from __future__ import annotations

import pytest

from tttlab.errors import TttlabError
from tttlab.game import Geometry
from tttlab.solvers.bitboard import ProofTable
from tttlab.solvers.summary import DEFAULT_MEMORY_MB, search_summary, table_bits, table_summary


def test_the_tables_summary_of_3x3_is_the_facts() -> None:
    summary = table_summary(Geometry())
    assert summary["board"] == "3x3k3"
    assert summary["value"] == 0
    assert summary["method"] == "table"
    assert summary["positions"] == 5_478
    assert summary["terminal"] == 958
    assert summary["terminal_split"] == {"x_wins": 626, "o_wins": 316, "draws": 16}
    assert summary["symmetric_positions"] == 765
    assert summary["symmetric_nonterminal"] == 627
    assert summary["game_tree"]["games"] == 255_168
    assert summary["optimal_first_moves"] == list(range(9))  # every first move draws
    assert set(summary["best_first_moves"]) <= set(range(9))


@pytest.mark.parametrize(("board", "value"), [("3x3k3", 0), ("3x4k3", 1), ("4x4k4", 0)])
def test_the_search_summary_gives_the_tables_value(board: str, value: int) -> None:
    summary = search_summary(Geometry.parse(board), time_limit=60)
    assert (summary["board"], summary["value"], summary["method"]) == (board, value, "search")
    assert summary["nodes"] > 0
    assert 0 < summary["table_entries"] <= summary["table_slots"]
    if value == 1:  # a winning first move, one of the table's
        table = table_summary(Geometry.parse(board))
        assert summary["best_move"] in table["optimal_first_moves"]


def test_the_proof_table_grows_with_the_board_and_fits_its_memory() -> None:
    boards = ("3x3k3", "3x4k3", "4x4k4", "5x5k4", "7x7k5", "8x8k5")
    sizes = [table_bits(Geometry.parse(b)) for b in boards]
    assert sizes == sorted(sizes)
    assert sizes[:5] == [16, 20, 22, 23, 23]
    most = ((DEFAULT_MEMORY_MB << 20) // ProofTable.SLOT_BYTES).bit_length() - 1
    assert sizes[-1] == min(30, most)
    small = table_bits(Geometry.parse("7x7k5"), memory_mb=64)
    assert (1 << small) * ProofTable.SLOT_BYTES <= 64 << 20 < (2 << small) * ProofTable.SLOT_BYTES


def test_too_little_memory_is_one_clear_error() -> None:
    with pytest.raises(TttlabError, match="--memory 0 MiB is too little"):
        table_bits(Geometry.parse("5x5k4"), memory_mb=0)
