"""Proof certificates: the solver writes them, and the separate verifier (rules only) accepts
them and rejects each kind of corruption."""

from __future__ import annotations

import copy
import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.cli.helpers import ttt
from tttlab.certrules import Rules
from tttlab.game import Geometry, Position
from tttlab.solvers import solve_table
from tttlab.solvers.bitboard import SearchStopped
from tttlab.solvers.certificate import (
    _completes,
    _held,
    build_certificate,
    canonical,
    pairing,
    replies,
    write_certificate,
)
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
    with pytest.raises(CertificateError, match=r"not a win for X|no move here|an entry where O"):
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


def test_ttt_solve_writes_zones_unless_told_not_to(tmp_path: Path) -> None:
    """Version 3 (zones) by default, version 2 with --no-zones; both verify."""
    versions = {}
    for flag in ("--zones", "--no-zones"):
        path = tmp_path / f"c{flag}.json"
        board = ("--board", "6x6", "--k", "5", "--engine", "search")
        solved = ttt("solve", *board, "--certificate", str(path), flag)
        assert solved.returncode == 0, solved.stderr
        data = json.loads(path.read_text())
        versions[flag] = data["version"]
        zoned = [e for s in data["strategies"].values() for e in s.values() if isinstance(e, dict)]
        assert bool(zoned) == (flag == "--zones")
        assert ttt("verify", str(path)).returncode == 0
    assert versions == {"--zones": 3, "--no-zones": 2}
    alone = ttt("solve", "--board", "6x6", "--k", "5", "--engine", "search", "--no-zones")
    assert alone.returncode == 2
    assert "--zones/--no-zones only work with --certificate" in alone.stderr


def test_ttt_verify_on_what_is_not_a_certificate_says_so_in_one_line(tmp_path: Path) -> None:
    for path in (tmp_path / "missing.json", tmp_path):
        result = ttt("verify", str(path))
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_pairing_leaf_is_checked_as_a_pairing() -> None:
    """3x6 with k=4 has nine lines, the rows' windows of four: O holds from the start by
    two pairs in each row, and the solver's certificate is that pairing at the root. On 4x5
    with k=4 the certificate ends in pairings deeper in the game. The verifier accepts them,
    and rejects a pairing that leaves a line uncovered, reuses a cell, uses an occupied one
    or is not made of pairs."""
    data = _certificate(Position.initial(Geometry(3, 6, 4)))
    assert data["claim"] == "draw"
    root = data["position"]
    pairs = data["strategies"]["O"][root]
    assert len(pairs) == 6
    assert sorted(a // 6 for a, b in pairs if a // 6 == b // 6) == [0, 0, 1, 1, 2, 2]
    assert verify(data).positions == {"X": 1, "O": 1}
    for bad_pairs, fragment in [
        ([pairs[0], *pairs[2:]], "uncovered"),
        ([pairs[0], [pairs[0][1], 5], *pairs[1:]], f"cell {pairs[0][1]} is not free"),
        ([[*pairs[0], 5], *pairs[1:]], "is not a pair of cells"),
        ([[pairs[0][0], 99], *pairs[1:]], "cell 99 is not free"),
    ]:
        bad = copy.deepcopy(data)
        bad["strategies"]["O"][root] = bad_pairs
        with pytest.raises(CertificateError, match=re.escape(fragment)):
            verify(bad)
    deeper = _certificate(Position.initial(Geometry(4, 5, 4)))
    key, leaf = next((k, v) for k, v in deeper["strategies"]["O"].items() if isinstance(v, list))
    verify(deeper)
    taken = key.replace("/", "").index("X")
    bad = copy.deepcopy(deeper)
    bad["strategies"]["O"][key] = [[taken, leaf[0][1]], *leaf[1:]]
    with pytest.raises(CertificateError, match=f"cell {taken} is not free"):
        verify(bad)


def test_a_certificate_past_its_time_limit_says_so_whichever_proof_was_running() -> None:
    # 5x5 k=4's value proves in a fraction of a second, its certificate takes half a minute
    with pytest.raises(
        SearchStopped, match=r"^the certificate of 5x5k4 was not finished within .* 1\.5 s$"
    ):
        build_certificate(Position.initial(Geometry(5, 5, 4)), table_bits=20, time_limit=1.5)


def _dead_by_definition(board: str, g: Geometry, cell: int) -> bool:
    """A cell is dead when every line through it holds an X and an O (written from the
    definition, apart from both implementations)."""
    return all({"X", "O"} <= {board[c] for c in line} for line in g.lines if cell in line)


@pytest.mark.parametrize("board", ["3x3k3", "4x4k4", "5x5k4"])
def test_the_verifier_and_the_builder_walk_the_same_replies(board: str) -> None:
    """Every live reply, and of the dead ones the lowest against a winning strategy and none
    against a holding one: the verifier (rules only) and the certificate builder (tttlab's
    positions) agree with the definition on random games."""
    g = Geometry.parse(board)
    rules = Rules(g.rows, g.cols, g.k)
    rng = np.random.default_rng(7)
    seen_dead = 0
    for _ in range(300):
        p = Position.initial(g)
        while not p.is_terminal:
            text = p.to_string()
            empty = list(p.legal_moves)
            dead = [c for c in empty if _dead_by_definition(text, g, c)]
            seen_dead += bool(dead)
            live = sorted(c for c in empty if c not in dead)
            for hold, expected in ((True, live), (False, live + dead[:1])):
                assert sorted(replies(p, hold)) == sorted(expected)
                assert sorted(rules.replies(text, empty, hold)) == sorted(expected)
            p = p.apply(int(rng.choice(empty)))
    assert seen_dead > 20  # the games did reach dead cells


def test_a_holding_strategy_answers_no_reply_on_a_dead_cell() -> None:
    """From a 4x4 k=4 position where O is to move with two dead empty cells (1 and 4: every
    line through them holds an X and an O) and the game is a draw, X's holding strategy
    answers neither of O's marks there (X may play any mark after one: an extra mark never
    helps O), and the verifier accepts it."""
    g = Geometry(4, 4, 4)
    position = Position.from_string("..OX/.XOX/X..X/OO..", g)
    text = position.to_string()
    dead = [c for c in position.legal_moves if _dead_by_definition(text, g, c)]
    assert position.to_move.name == "O"
    assert dead == [1, 4]
    data = _certificate(position)
    assert data["claim"] == "draw"
    strategy = data["strategies"]["X"]
    assert not any(position.apply(c).to_string("/") in strategy for c in dead)
    assert verify(data).claim == "draw"


def test_a_winning_strategy_answers_the_lowest_reply_on_a_dead_cell_and_needs_it() -> None:
    """From a 5x5 k=4 position where O is to move with three dead empty cells and X wins,
    X's strategy answers O's mark on the lowest dead cell only (the others are the same game
    with two cells swapped), and without that answer the certificate is refused."""
    g = Geometry(5, 5, 4)
    position = Position.from_string("O..../.X.XO/..OX./XX.OX/O.XO.", g)
    text = position.to_string()
    dead = [c for c in position.legal_moves if _dead_by_definition(text, g, c)]
    assert position.to_move.name == "O"
    assert dead == [10, 14, 24]
    data = _certificate(position)
    assert data["claim"] == "X wins"
    strategy = data["strategies"]["X"]
    lowest, *others = (position.apply(c).to_string("/") for c in dead)
    assert isinstance(strategy[lowest], int)
    assert not any(key in strategy for key in others)
    verify(data)
    bad = copy.deepcopy(data)
    del bad["strategies"]["X"][lowest]
    with pytest.raises(CertificateError, match="has no move here"):
        verify(bad)


@pytest.mark.parametrize("board", ["3x3k3", "3x4k3"])
def test_erdos_selfridge_leaves_are_never_positions_the_attacker_wins(board: str) -> None:
    """The holding walk stops where the lines free of the holder's marks, each weighing
    2^-(its empty cells), weigh under 1 with the holder to move (1/2 with the attacker to
    move). On every position of 3x3 and every fifth of 3x4 (k = 3) the verifier's weight
    agrees with one computed in fractions, and where it stops the solver's table says the
    attacker cannot win."""
    g = Geometry.parse(board)
    rules = Rules(g.rows, g.cols, g.k)
    solution = solve_table(g)
    space = solution.space
    stopped = 0
    for i in range(0, space.size, 1 if g.cells == 9 else 5):
        p = space.position(i)
        if p.is_terminal:
            continue
        text = p.to_string()
        for holder in "XO":
            weight = sum(
                Fraction(1, 2 ** sum(text[c] == "." for c in line))
                for line in g.lines
                if holder not in {text[c] for c in line}
            )
            holder_moves = p.to_move.name == holder
            held = weight < (1 if holder_moves else Fraction(1, 2))
            assert rules.held(text, holder, holder_moves) == held
            assert _held(p, 1 if holder == "X" else 2) == held
            if held:
                stopped += 1
                attacker_wins = 1 if holder == "O" else -1
                assert int(solution.value[i]) != attacker_wins, (text, holder)
    assert stopped > 0


def test_a_draw_that_the_weights_prove_needs_no_move_and_a_false_draw_is_refused() -> None:
    """4x4 with k=4 is a draw by Erdős–Selfridge alone: each side holds with no entry. The
    same empty strategies claiming a draw on 3x4 with k=3 (an X win) are refused."""
    data = _certificate(Position.initial(Geometry(4, 4, 4)))
    assert data["claim"] == "draw"
    assert data["strategies"] == {"X": {}, "O": {}}
    assert verify(data).claim == "draw"
    false = {**_certificate(Position.initial(Geometry(3, 4, 3))), "claim": "draw"}
    false["strategies"] = {"X": {}, "O": {}}
    with pytest.raises(CertificateError, match="strategy has no move here"):
        verify(false)


def _pairing_by_hand(p: Position, mark: int, effort: int = 2_000) -> list[list[int]] | None:
    """The certificates' pairing search as first written, in plain Python over cell sets (the
    compiled one must find the very same pairs: the same lines first, the same pair order,
    the same step limit)."""
    empty = {c for c, v in enumerate(p.cells) if v == 0}
    lines = [line for line in p.geometry.lines if all(p.cells[c] != mark for c in line)]
    options = []
    for line in lines:
        free = [c for c in line if c in empty]
        if len(free) < 2:
            return None
        options.append([(a, b) for i, a in enumerate(free) for b in free[i + 1 :]])
    steps = 0
    chosen: list[tuple[int, int]] = []

    def solve(used: frozenset[int], open_lines: list[int]) -> bool:
        nonlocal steps
        steps += 1
        if steps > effort:
            return False
        if not open_lines:
            return True
        choices = [[q for q in options[i] if not (set(q) & used)] for i in open_lines]
        i = min(range(len(open_lines)), key=lambda j: len(choices[j]))
        for pair in choices[i]:
            rest = [j for j in open_lines if not set(pair) <= set(lines[j])]
            chosen.append(pair)
            if solve(used | set(pair), rest):
                return True
            chosen.pop()
        return False

    return [list(q) for q in chosen] if solve(frozenset(), list(range(len(lines)))) else None


@pytest.mark.parametrize("board", ["3x3k3", "4x4k4", "4x5k4", "6x4k4", "5x5k4"])
def test_the_compiled_pairing_finds_the_pairs_of_the_plain_search(board: str) -> None:
    """On positions of random games, both sides: the same pairing or the same None, within
    the same steps (a small limit too); and the line-completion test by its definition."""
    g = Geometry.parse(board)
    rng = np.random.default_rng(7)
    found = 0
    for _ in range(30):
        p = Position.initial(g)
        while not p.is_terminal:
            for mark in (1, 2):
                for effort in (2_000, 3):
                    expected = _pairing_by_hand(p, mark, effort)
                    assert pairing(p, mark, effort) == expected, (p.to_string("/"), mark)
                    found += expected is not None and effort == 2_000
                lines = [[p.cells[c] for c in line] for line in g.lines]
                completes = any(
                    line.count(mark) == g.k - 1 and line.count(0) == 1 for line in lines
                )
                assert _completes(p, mark) == completes
            p = p.apply(int(rng.choice(p.legal_moves)))
    assert found > 20


def test_a_holding_strategy_moves_to_a_leaf_where_one_move_reaches_one() -> None:
    """Where a move of the holder leaves a position that the weights or a pairing hold, the
    strategy plays such a move (its subtree is one leaf), and the certificate still verifies;
    5x4 with k=4, both holders."""
    g = Geometry(5, 4, 4)
    data = _certificate(Position.initial(g))
    assert verify(data).claim == "draw"
    to_leaf = 0
    for side, mark in (("X", 1), ("O", 2)):
        for key, entry in data["strategies"][side].items():
            if not isinstance(entry, int):
                continue  # a pairing
            p = Position.from_string(key, g)
            leaves = [
                m
                for m in p.legal_moves
                if _held(p.apply(m), mark) or pairing(p.apply(m), mark) is not None
            ]
            if leaves:
                to_leaf += 1
                assert entry in leaves, (side, key)
    assert to_leaf > 50


@pytest.mark.parametrize("board", ["3x3k3", "4x3k3", "6x4k4", "5x5k4"])
def test_the_builder_and_the_verifier_take_the_same_first_image(board: str) -> None:
    """The builder's canonical position (from the game package's symmetries) and the
    verifier's first image (its own, from rows and columns) agree, square boards and not."""
    g = Geometry.parse(board)
    rules = Rules(g.rows, g.cols, g.k, symmetric=True)
    assert len(rules.images) == (8 if g.rows == g.cols else 4)
    rng = np.random.default_rng(5)
    for _ in range(40):
        p = Position.initial(g)
        while not p.is_terminal:
            assert canonical(p).to_string() == rules.first_image(p.to_string())
            p = p.apply(int(rng.choice(p.legal_moves)))


@pytest.mark.parametrize("board", ["3x3k3", "4x3k3", "4x4k3", "6x4k4", "5x5k4", "6x6k5"])
def test_a_certificate_up_to_symmetry_verifies_keyed_by_first_images(board: str) -> None:
    g = Geometry.parse(board)
    plain = build_certificate(Position.initial(g), table_bits=18)
    folded = build_certificate(Position.initial(g), table_bits=18, symmetric=True)
    data = folded.to_dict()
    assert data["version"] == 2
    verdict = verify(data)
    assert verdict.claim == plain.claim
    rules = Rules(g.rows, g.cols, g.k, symmetric=True)
    for moves in data["strategies"].values():
        assert all(rules.first_image(key.replace("/", "")) == key.replace("/", "") for key in moves)
    # the same entries read as version 1 (positions as they stand) leave positions unanswered
    if folded.moves:
        with pytest.raises(CertificateError, match=r"has no move here|completes a line"):
            verify({**data, "version": 1})


def test_a_wrong_move_up_to_symmetry_is_refused() -> None:
    g = Geometry.parse("4x3k3")
    data = build_certificate(Position.initial(g), table_bits=16, symmetric=True).to_dict()
    moves = data["strategies"]["X"]
    key = next(k for k, m in moves.items() if isinstance(m, int) and k.count("X") >= 1)
    position = Position.from_string(key, g)
    for other in position.legal_moves:
        if other != moves[key]:
            wrong = copy.deepcopy(data)
            wrong["strategies"]["X"][key] = other
            try:
                verify(wrong)
            except CertificateError:
                return  # some other move loses, and the verifier sees it
    pytest.fail("every move at that position wins: the test needs another position")
