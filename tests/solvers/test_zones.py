"""Zones in holding strategies (version-3 certificates): a zone's position is keyed with its
side to move, every zone's position is one the holder holds (by a plain search over the
rules, apart from the solver), the verifier walks them, and no forged zone makes a false
draw pass."""

from __future__ import annotations

import copy
import random
from functools import cache
from typing import Any

import pytest

from tttlab.certrules import Rules
from tttlab.game import Geometry, Player, Position
from tttlab.solvers.bitboard import ProofTable, prove
from tttlab.solvers.certificate import _masks, build_certificate, replies
from tttlab.solvers.zones import Marks, hold_window, table_key, zone_replies
from tttlab.verifier import CertificateError, verify


def test_a_zones_position_carries_its_side_to_move_where_the_counts_do_not_give_it() -> None:
    g = Geometry()
    two_ahead = Marks(g, (1, 1, 0, 0, 0, 0, 0, 0, 0), Player.O)
    assert two_ahead.to_string("/") == "XX./.../... O"
    assert two_ahead.to_move is Player.O
    assert table_key(two_ahead) == 1
    counted = Marks(g, (1, 0, 0, 0, 2, 0, 0, 0, 0), Player.X)
    assert counted.to_string("/") == "X../.O./..."
    assert table_key(counted) == 0
    assert Marks(g, counted.cells, Player.O).to_string() == "X...O.... O"
    after = two_ahead.apply(2)
    assert after.to_move is Player.X
    assert after.to_string() == "XXO...... X"
    assert two_ahead.transform(g.symmetries[1]).to_move is Player.O
    rules = Rules(3, 3, 3)
    assert rules.key("XX.......", "O") == "XX./.../... O"
    assert rules.key("X...O....", "X") == "X../.O./..."
    assert rules.key("X...O....", "O") == "X../.O./... O"
    with pytest.raises(ValueError, match="not a legal move"):
        two_ahead.apply(0)


def _lines(g: Geometry) -> list[int]:
    return [sum(1 << c for c in line) for line in g.lines]


def _attacker_wins(g: Geometry, x: int, o: int, mover: int, attacker: int) -> bool:
    """Whether ``attacker`` completes a line against every defence (a plain search over the
    rules, marks as bitmasks, ``mover`` 1 for X)."""
    lines, full = _lines(g), (1 << g.cells) - 1

    @cache
    def wins(x: int, o: int, mover: int) -> bool:
        mine, theirs = (x, o) if attacker == 1 else (o, x)
        if any(line & mine == line for line in lines):
            return True
        if any(line & theirs == line for line in lines) or x | o == full:
            return False
        after = []
        for c in range(g.cells):
            if not (x | o) >> c & 1:
                after.append((x | 1 << c, o) if mover == 1 else (x, o | 1 << c))
        outcomes = (wins(a, b, 3 - mover) for a, b in after)
        return any(outcomes) if mover == attacker else all(outcomes)

    return wins(x, o, mover)


@pytest.mark.parametrize(("board", "seed"), [("5x4k4", 1), ("6x4k4", 2), ("5x5k4", 3)])
def test_every_zones_position_is_one_the_holder_holds(board: str, seed: int) -> None:
    g = Geometry.parse(board)
    rng = random.Random(seed)
    table = ProofTable(16)
    zones_seen = 0
    for _ in range(60):
        p = Position.initial(g)
        for _ in range(rng.randrange(g.cells - 11, g.cells - 6)):
            if p.is_terminal:
                break
            p = p.apply(rng.choice(p.legal_moves))
        if p.is_terminal:
            continue
        attacker, holder = int(p.to_move), p.to_move.other
        if _attacker_wins(g, *p.bitboards, attacker, attacker):
            continue  # the holder does not hold here: no zones to ask for
        live = replies(p, hold=True)
        cells, walked = zone_replies(
            p,
            live,
            _masks(g)[1],
            lambda q, h=holder: prove(q, table=table, window=hold_window(h)).holds_zone,
        )
        zones_seen += len(cells)
        for q, zone in zip(walked, cells, strict=False):  # each zone's position first
            assert isinstance(q, Marks)
            assert q.to_move is holder
            for c in range(g.cells):  # the attacker on every empty cell outside the zone
                assert q.cells[c] == (p.cells[c] or (0 if c in zone else attacker))
            assert not _attacker_wins(g, *q.bitboards, int(holder), attacker), (p, zone)
        children = {q.cells for q in walked[len(cells) :]}
        for move in live:  # every reply: outside a zone, or walked on its own
            inside = all(move in zone for zone in cells)
            assert inside == (p.apply(move).cells in children)
    assert zones_seen > 0


def _v3(board: str) -> dict[str, Any]:
    g = Geometry.parse(board)
    return build_certificate(Position.initial(g), table_bits=16, zones=True).to_dict()


@pytest.fixture(scope="module")
def v3_664() -> dict[str, Any]:
    return _v3("6x6k5")


def _zone_entries(data: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (side, key)
        for side, moves in data["strategies"].items()
        for key, entry in moves.items()
        if isinstance(entry, dict)
    ]


@pytest.mark.parametrize("board", ["3x3k3", "5x4k4", "5x5k4", "6x4k4"])
def test_version_3_certificates_verify(board: str) -> None:
    data = _v3(board)
    assert data["version"] == 3
    assert data["claim"] == "draw"
    assert verify(data).claim == "draw"


def test_zones_make_6x6_k5_smaller_and_are_walked(v3_664: dict[str, Any]) -> None:
    g = Geometry(6, 6, 5)
    v2 = build_certificate(Position.initial(g), table_bits=16, symmetric=True).to_dict()
    size = sum(len(s) for s in v3_664["strategies"].values())
    assert size < sum(len(s) for s in v2["strategies"].values())
    entries = _zone_entries(v3_664)
    assert entries
    keyed = [k for s in v3_664["strategies"].values() for k in s if " " in k]
    assert keyed  # positions of zones' proofs, keyed with their side to move
    verdict = verify(v3_664)
    assert verdict.claim == "draw"
    assert verdict.positions["O"] > 0


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"zones": []}, "is not an entry of zones"),
        ({"zones": 3}, "is not an entry of zones"),
        ({"zone": [[0]]}, "is not an entry of zones"),
        ({"zones": [[-1]]}, "not a zone of the empty cells"),
        ({"zones": [[True]]}, "not a zone of the empty cells"),
        ({"zones": ["0"]}, "not a zone of the empty cells"),
        ({"zones": [[[0]]]}, "not a zone of the empty cells"),
        ({"zones": [[0, {"a": 1}]]}, "not a zone of the empty cells"),
    ],
)
def test_a_malformed_zone_entry_is_refused_in_one_line(
    v3_664: dict[str, Any], entry: Any, reason: str
) -> None:
    data = copy.deepcopy(v3_664)
    side, key = _zone_entries(data)[0]
    data["strategies"][side][key] = entry
    with pytest.raises(CertificateError, match=reason) as caught:
        verify(data)
    assert "\n" not in str(caught.value)


def test_a_zone_of_occupied_or_repeated_cells_or_every_empty_cell_is_refused(
    v3_664: dict[str, Any],
) -> None:
    side, key = _zone_entries(v3_664)[0]
    board = key.split(" ")[0].replace("/", "")
    empty = [c for c, m in enumerate(board) if m == "."]
    taken = board.index("X")
    for zone in ([taken], [empty[0], empty[0]], empty, [*empty[:2], 99]):
        data = copy.deepcopy(v3_664)
        data["strategies"][side][key] = {"zones": [zone]}
        with pytest.raises(CertificateError, match="not a zone of the empty cells"):
            verify(data)


def test_a_zone_that_leaves_out_too_much_is_refused(v3_664: dict[str, Any]) -> None:
    """The zone's position gives the attacker every cell outside it: an empty zone hands it
    the whole board, where it has a line."""
    data = copy.deepcopy(v3_664)
    side, key = _zone_entries(data)[0]
    data["strategies"][side][key] = {"zones": [[]]}
    with pytest.raises(CertificateError, match="completes a line"):
        verify(data)


def test_zones_only_in_version_3_and_only_where_the_other_side_moves(
    v3_664: dict[str, Any],
) -> None:
    data = copy.deepcopy(v3_664)
    data["version"] = 2
    with pytest.raises(CertificateError, match="an entry where"):
        verify(data)


def _forged_hold(rules: Rules, side: str, rng: random.Random) -> dict[str, Any]:
    """A holding strategy for ``side`` made up as a verifier's walk asks: any legal move, and
    at half the other side's positions random zones."""
    other = "O" if side == "X" else "X"
    moves: dict[str, Any] = {}
    stack, seen = [("." * rules.cells, "X")], set()
    while stack:
        board, mover = stack.pop()
        board = rules.first_image(board)
        if (board, mover) in seen or rules.winner(board) or "." not in board:
            continue
        seen.add((board, mover))
        key, empty = rules.key(board, mover), [c for c, m in enumerate(board) if m == "."]
        if mover == side:
            moves[key] = move = rng.choice(empty)
            stack.append((board[:move] + side + board[move + 1 :], other))
            continue
        live = rules.replies(board, empty, True)
        if len(empty) > 1 and rng.random() < 0.5:
            zones = [sorted(rng.sample(empty, rng.randrange(len(empty)))) for _ in range(2)]
            moves[key] = {"zones": zones}
            for zone in zones:
                filled = "".join(m if m != "." or c in zone else other for c, m in enumerate(board))
                stack.append((filled, side))
            live = [c for c in live if all(c in zone for zone in zones)]
        stack.extend((board[:c] + other + board[c + 1 :], side) for c in live)
    return moves


@pytest.mark.parametrize(("board", "forgeries"), [("3x4k3", 40), ("4x4k3", 15), ("4x3k3", 40)])
def test_no_forged_zones_make_a_false_draw_pass(board: str, forgeries: int) -> None:
    """X wins these boards: X's winning strategy holds, so a draw needs O's strategy to hold,
    and no made-up strategy with made-up zones does."""
    g = Geometry.parse(board)
    win = build_certificate(Position.initial(g), table_bits=16, zones=True).to_dict()
    assert win["claim"] == "X wins"
    rules = Rules(g.rows, g.cols, g.k, symmetric=True)
    rng = random.Random(board)
    for _ in range(forgeries):  # (4x4's forgeries take 0.2 s each)
        data = dict(win, claim="draw")
        data["strategies"] = {"X": win["strategies"]["X"], "O": _forged_hold(rules, "O", rng)}
        with pytest.raises(CertificateError, match="X completes a line against O's strategy"):
            verify(data)
