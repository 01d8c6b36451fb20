"""``ttt solve``: the documented JSON, pinned to the facts (``ttt policy``:
tests/cli/test_policy_cmd.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import interrupt_when, refusal, start_ttt, ttt
from tttlab.game import Geometry, Position
from tttlab.solvers.bitboard import ProofTable, prove
from tttlab.solvers.longrun import load_checkpoint
from tttlab.solvers.summary import table_bits


def test_solve_json() -> None:
    result = ttt("solve", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["board"] == "3x3k3"
    assert data["value"] == 0
    assert data["positions"] == 5478
    assert data["terminal"] == 958
    assert data["terminal_split"] == {"x_wins": 626, "o_wins": 316, "draws": 16}
    assert data["symmetric_positions"] == 765
    assert data["game_tree"] == {
        "nodes": 549_946,
        "games": 255_168,
        "x_wins": 131_184,
        "o_wins": 77_904,
        "draws": 46_080,
    }


def test_solve_other_board_and_text_output() -> None:
    data = json.loads(ttt("solve", "--board", "3x4", "--k", "3", "--json").stdout)
    assert data["board"] == "3x4k3"
    assert data["value"] == 1
    text = ttt("solve")
    assert text.returncode == 0
    assert "draw" in text.stdout
    assert "5,478" in text.stdout


def test_solve_past_25_cells_gives_the_winning_first_move() -> None:
    """6,5,4 is a first-player win (Uiterwijk and van den Herik 2000): the search says so,
    and its first move keeps the win (proved again by the table-free search)."""
    result = ttt("solve", "--board", "6x5", "--k", "4", "--memory", "64", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["board"], data["value"], data["method"]) == ("6x5k4", 1, "search")
    root = Position.initial(Geometry(6, 5, 4))
    assert prove(root.apply(data["best_move"]), table_bits=20).value == 1
    text = ttt("solve", "--board", "6x5", "--k", "4", "--memory", "64")
    assert f"X's winning first move: {data['best_move'] + 1} " in text.stdout


def test_solve_past_39_cells_and_a_draw_that_pairings_prove_at_the_root() -> None:
    """7×6 with k = 5 (42 cells, past the boards tttlab plays) is a draw (7,7,5 is, Hsu et
    al. 2020); 5×5 with k = 5 is a pairing at the root, so the proof names no move."""
    result = ttt("solve", "--board", "7x6", "--k", "5", "--memory", "256", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["board"], data["value"], data["method"]) == ("7x6k5", 0, "search")
    text = ttt("solve", "--board", "5x5", "--k", "5", "--memory", "64")
    assert text.returncode == 0, text.stderr
    assert "5x5k5: with perfect play the game is a draw" in text.stdout
    refused = ttt("play", "--board", "7x6", "--k", "5")
    assert refused.returncode == 2
    assert "boards past 39 cells are for the proof search only" in refused.stderr


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["solve", "--board", "banana"], "must look like"),
        (["solve", "--board", "3x3", "--k", "0"], "'--k'"),
        (["solve", "--board", "9x9"], "cells"),
        (["solve", "--board", "5x5", "--k", "4", "--engine", "table"], "positions"),
        (["solve", "--board", "5x5", "--k", "4", "--positions"], "positions"),
        (["solve", "--memory", "64"], "only work with the proof search"),
        (["solve", "--board", "4x4", "--k", "4", "--memory", "8"], "'--memory'"),
        (["solve", "--board", "4x4", "--k", "4", "--time-limit", "0"], "'--time-limit'"),
        (
            ["solve", "--board", "7x4", "--k", "4", "--time-limit", "0.3"],
            "7x4k4 was not proved within the time limit of 0.3 s",
        ),
        (["nosuchcommand"], "No such command"),
        (["solve", "--nosuchoption"], "No such option"),
    ],
)
def test_bad_arguments(args: list[str], fragment: str) -> None:
    assert fragment in refusal(*args)


# `ttt demo` runs in tests/test_packaging.py, from the installed wheel.


def test_a_checkpointed_proof_stopped_by_its_limit_goes_on_from_its_file(tmp_path: Path) -> None:
    path = tmp_path / "run.npz"
    board = ("solve", "--board", "7x4", "--k", "4", "--checkpoint", str(path))
    stopped = ttt(*board, "--time-limit", "0.2", "--checkpoint-every", "0.05")
    assert stopped.returncode == 2
    assert len(stopped.stderr.strip().splitlines()) == 1  # naming the limit and the file
    assert "within the time limit of 0.2 s" in stopped.stderr
    assert f"its table is saved in {path}" in stopped.stderr
    resumed = ttt(*board, "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["value"] == 0
    assert "--checkpoint-every only works with --checkpoint" in refusal(
        "solve", "--board", "7x4", "--k", "4", "--checkpoint-every", "5"
    )
    assert "does not work with --certificate" in refusal(
        *board, "--certificate", str(tmp_path / "c.json")
    )
    other = ttt("solve", "--board", "6x4", "--k", "4", "--checkpoint", str(path))
    assert other.returncode != 0
    assert other.stderr.strip().splitlines() == [
        f"ttt: error: {path} holds the proof of 7x4k4 from ..../..../..../..../..../..../...., "
        "not of 6x4k4 from ..../..../..../..../..../...."
    ]


def test_ctrl_c_saves_a_checkpointed_proofs_table_first(tmp_path: Path) -> None:
    """A long proof stopped by Ctrl-C keeps its work: the table is saved, then exit 130."""
    path = tmp_path / "run.npz"
    proc = start_ttt(
        *("solve", "--board", "8x8", "--k", "5", "--memory", "64", "--time-limit", "600"),
        *("--checkpoint", path, "--checkpoint-every", "0.5"),
    )
    stamps: list[int] = []

    def searching() -> bool:  # its first save made: the search runs
        if path.exists():
            stamps.append(path.stat().st_mtime_ns)
        return bool(stamps)

    err = interrupt_when(proc, searching, wait=60)
    assert proc.returncode == 130, err
    assert err.strip() == "ttt: interrupted"
    assert path.stat().st_mtime_ns > stamps[-1]  # saved again after the Ctrl-C
    table = ProofTable(table_bits(Geometry(8, 8, 5), 64))
    load_checkpoint(path, Position.initial(Geometry(8, 8, 5)), table)
    assert table.entries > 0
