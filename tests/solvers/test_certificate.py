"""Proof certificates: the solver writes them, and the separate verifier (rules only) accepts
them and rejects each kind of corruption."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import ttt
from tttlab.game import Geometry, Position
from tttlab.solvers import solve_table
from tttlab.solvers.bitboard import SearchStopped
from tttlab.solvers.certificate import build_certificate, write_certificate
from tttlab.verifier import CertificateError, verify, verify_file


def _certificate(position: Position) -> dict[str, Any]:
    return build_certificate(position, table_bits=16).to_dict()


@pytest.fixture(scope="module")
def draw33() -> dict[str, Any]:
    return _certificate(Position.initial(Geometry()))


@pytest.fixture(scope="module")
def win34() -> dict[str, Any]:
    return _certificate(Position.initial(Geometry(3, 4, 3)))


@pytest.mark.parametrize("board", ["3x3k3", "3x4k3", "4x3k3", "2x4k2", "2x4k4", "1x1k1"])
def test_the_verifier_accepts_the_solvers_certificates_and_agrees_with_the_table(
    board: str, tmp_path: Path
) -> None:
    g = Geometry.parse(board)
    certificate = build_certificate(Position.initial(g), table_bits=16)
    assert certificate.value == solve_table(g).value_at(0)
    path = tmp_path / "c.json"
    assert write_certificate(certificate, path) == path.stat().st_size
    verdict = verify_file(path)
    assert verdict.claim == certificate.claim
    expected = {"X", "O"} if certificate.value == 0 else {"X"}
    assert set(verdict.positions) == expected


def test_positions_other_than_the_start_every_value_on_3x3() -> None:
    """For each value, an unfinished 3x3 position that has it: O's wins too."""
    solution = solve_table(Geometry())
    space = solution.space
    found: dict[int, Position] = {}
    for i in range(space.size):
        p = space.position(i)
        if not p.is_terminal and len(p.legal_moves) >= 4:
            found.setdefault(int(solution.value[i]), p)
    assert set(found) == {-1, 0, 1}
    for value, position in found.items():
        data = _certificate(position)
        assert data["claim"] == {1: "X wins", 0: "draw", -1: "O wins"}[value]
        assert verify(data).claim == data["claim"]


def _reached(data: dict[str, Any], side: str) -> str:
    """A position of ``side``'s strategy (one with a move) other than the root."""
    return next(key for key in data["strategies"][side] if key != data["position"])


def test_a_missing_reply_is_rejected(draw33: dict[str, Any]) -> None:
    data = copy.deepcopy(draw33)
    del data["strategies"]["O"][_reached(data, "O")]
    with pytest.raises(CertificateError, match="O's strategy has no move here"):
        verify(data)


def test_an_illegal_move_is_rejected(win34: dict[str, Any]) -> None:
    data = copy.deepcopy(win34)
    key = _reached(data, "X")
    data["strategies"]["X"][key] = key.replace("/", "").index("X")  # an occupied cell
    with pytest.raises(CertificateError, match="is not a legal move"):
        verify(data)
    data["strategies"]["X"][key] = 99
    with pytest.raises(CertificateError, match="is not a legal move"):
        verify(data)


def test_a_leaf_that_is_not_a_win_is_rejected(draw33: dict[str, Any]) -> None:
    """X's holding strategy of 3x3 claimed as a win: some game ends without X's line."""
    data = copy.deepcopy(draw33)
    data["claim"] = "X wins"
    with pytest.raises(CertificateError, match=r"not a win for X|has no move here"):
        verify(data)


def test_a_strategy_that_lets_the_other_side_win_is_rejected(win34: dict[str, Any]) -> None:
    """Each of X's moves in turn replaced by another legal move: wherever the change makes a
    difference the verifier finds the game it loses or does not win."""
    rejected = 0
    for key, move in win34["strategies"]["X"].items():
        board = key.replace("/", "")
        for other in (c for c, mark in enumerate(board) if mark == "." and c != move):
            data = copy.deepcopy(win34)
            data["strategies"]["X"][key] = other
            try:
                verify(data)
            except CertificateError:
                rejected += 1
    assert rejected > 0


def test_files_that_are_not_certificates_are_rejected(tmp_path: Path) -> None:
    for text, fragment in [
        ("not json", "not JSON"),
        ("[1, 2]", "is not a tttlab-certificate file"),
        ('{"format": "other"}', "is not a tttlab-certificate file"),
        ('{"format": "tttlab-certificate", "version": 7}', "version 1"),
        (
            '{"format": "tttlab-certificate", "version": 1, "rows": 3, "cols": 3, "k": 3, '
            '"claim": "draw", "strategies": {"X": {}}}',
            "needs O's strategy",
        ),
        (
            '{"format": "tttlab-certificate", "version": 1, "rows": 3, "cols": 3, "k": 3, '
            '"claim": "X wins", "strategies": {"X": {}}}',
            "X's strategy has no move here",
        ),
        (
            '{"format": "tttlab-certificate", "version": 1, "rows": 3, "cols": 3, "k": 3, '
            '"position": "XX./.../...", "claim": "X wins", "strategies": {"X": {}}}',
            "not a position of a game",
        ),
    ]:
        path = tmp_path / "bad.json"
        path.write_text(text)
        with pytest.raises(CertificateError, match=fragment):
            verify_file(path)


def test_ttt_solve_writes_and_ttt_verify_checks(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    solved = ttt(
        "solve",
        "--board",
        "3x4",
        "--k",
        "3",
        "--engine",
        "search",
        "--json",
        "--certificate",
        str(path),
    )
    assert solved.returncode == 0, solved.stderr
    summary = json.loads(solved.stdout)["certificate"]
    assert summary["file"] == str(path)
    assert summary["bytes"] == path.stat().st_size
    checked = ttt("verify", str(path), "--json")
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["claim"] == "X wins"
    data = json.loads(path.read_text())
    data["strategies"]["X"].pop(data["position"])
    path.write_text(json.dumps(data))
    rejected = ttt("verify", str(path))
    assert rejected.returncode == 1
    assert rejected.stderr.strip().splitlines() == [
        f"ttt verify: rejected: {data['position']}: X's strategy has no move here"
    ]


def test_ttt_verify_on_what_is_not_a_certificate_says_so_in_one_line(tmp_path: Path) -> None:
    for path in (tmp_path / "missing.json", tmp_path):
        result = ttt("verify", str(path))
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_pairing_leaf_is_checked_as_a_pairing() -> None:
    """2x4 with k=4 has two lines, the rows: each side holds by a pair in each row. The
    solver's certificate is that pairing, at the root; the verifier accepts it, and rejects a
    pairing that leaves a line uncovered, reuses a cell, uses an occupied one or is not made
    of pairs."""
    data = _certificate(Position.initial(Geometry(2, 4, 4)))
    assert data["claim"] == "draw"
    root = data["position"]
    for side in ("X", "O"):
        pairs = data["strategies"][side][root]
        assert len(pairs) == 2
        assert {c // 4 for c in pairs[0]} != {c // 4 for c in pairs[1]}  # one pair per row
    assert verify(data).positions == {"X": 1, "O": 1}
    for pairs, fragment in [
        ([[0, 1]], "leaves the line [4, 5, 6, 7] uncovered"),
        ([[0, 1], [1, 5]], "cell 1 is not free"),
        ([[0, 4], [1, 5]], "leaves the line"),
        ([[0, 1, 2], [4, 5]], "is not a pair of cells"),
        ([[0, 1], [4, 99]], "cell 99 is not free"),
    ]:
        bad = copy.deepcopy(data)
        bad["strategies"]["O"][root] = pairs
        with pytest.raises(CertificateError, match=re.escape(fragment)):
            verify(bad)
    later = copy.deepcopy(data)
    later["position"] = "X.../...."
    later["strategies"]["X"] = {"X.../....": [[2, 3], [6, 7]]}
    later["strategies"]["O"] = {"X.../....": [[0, 1], [4, 5]]}  # 0 is X's
    with pytest.raises(CertificateError, match="cell 0 is not free"):
        verify(later)


def test_a_certificate_past_its_time_limit_says_so_whichever_proof_was_running() -> None:
    # 5x5 k=4's value proves in a fraction of a second, its certificate takes half a minute
    with pytest.raises(
        SearchStopped, match=r"^the certificate of 5x5k4 was not finished within .* 1\.5 s$"
    ):
        build_certificate(Position.initial(Geometry(5, 5, 4)), table_bits=20, time_limit=1.5)
