"""The proof search's compiled kernel (:mod:`tttlab.solvers.kernel`): the pairing bound, on
its own and in the search, where it makes published values quick; the relevance zones, by
the values of positions where the search leaves moves out, against a plain negamax."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from tttlab.game import Geometry, Position
from tttlab.solvers import slots
from tttlab.solvers.bitboard import ProofTable, _tables, prove
from tttlab.solvers.certificate import pairing
from tttlab.solvers.pairing import PAIRING_STEPS, holds_by_pairing

#: Published values that only the pairing bounds make quick (benchmarks/mnk_table.py: 8,4,4
#: in 10 s, was 202 s; 6,5,5 in 40 nodes, was 1.08 billion; 6,6,5 in 4,787, unproved before).
PAIRED = [("7x4k4", 0), ("6x6k4", 1), ("7x5k4", 1), ("5x5k5", 0), ("6x5k5", 0), ("6x6k5", 0)]


@pytest.mark.parametrize(("board", "value"), PAIRED)
def test_known_values_that_pairings_make_quick(board: str, value: int) -> None:
    assert prove(Position.initial(Geometry.parse(board)), table_bits=22).value == value


@pytest.mark.parametrize(
    ("board", "defender", "holds"),
    [
        ("1x2k2", 0, True),  # one line, one pair
        ("3x3k3", 0, False),  # 8 lines need 16 cells
        ("3x3k3", 1 << 4, True),  # the centre taken: the four lines left pair up round it
        ("4x4k4", 0, False),  # 10 lines need 20 cells
        ("5x5k5", 0, True),  # the classic pairing of five in a row on 5x5
    ],
)
def test_a_pairing_covers_every_line_free_of_the_defender(
    board: str, defender: int, holds: bool
) -> None:
    t = _tables(Geometry.parse(board))
    scratch = np.zeros((4, max(len(t.lines), 2)), dtype=np.int64)
    assert (
        holds_by_pairing(0, defender, t.lines, t.full, scratch, t.pair_lines, PAIRING_STEPS)
        == holds
    )


@pytest.mark.parametrize("board", ["4x4k4", "5x5k5", "5x4k4"])
def test_the_kernels_pairings_are_pairings_the_certificates_finder_finds(board: str) -> None:
    """The compiled pairing test (a bound in the search) against the certificate builder's
    own finder in Python, on random positions: whatever the kernel finds exists, and on the
    boards' open positions both find some."""
    geometry = Geometry.parse(board)
    t = _tables(geometry)
    scratch = np.zeros((4, max(len(t.lines), 2)), dtype=np.int64)
    rng = np.random.default_rng(3)
    found = 0
    for _ in range(300):
        position = Position.initial(geometry)
        for _ in range(int(rng.integers(0, geometry.cells // 2))):
            if position.is_terminal:
                break
            position = position.apply(int(rng.choice(position.legal_moves)))
        if position.is_terminal:
            continue
        x, o = position.bitboards
        for attacker, defender, mark in ((x, o, 2), (o, x, 1)):
            if holds_by_pairing(
                attacker, defender, t.lines, t.full, scratch, t.pair_lines, PAIRING_STEPS
            ):
                found += 1
                assert pairing(position, mark, effort=1_000_000) is not None, position
    assert found > 20  # the test reaches positions with pairings


def _negamax(geometry: Geometry):  # type: ignore[no-untyped-def]
    """The plain game value for the side to move, by memoised negamax over bitmasks."""
    full = (1 << geometry.cells) - 1
    lines = [m & full for m in map(int, geometry.line_masks)]

    @cache
    def value(me: int, opp: int) -> int:
        if any(line & opp == line for line in lines):
            return -1
        free = full & ~(me | opp)
        best = 0 if not free else -1
        for c in range(geometry.cells):
            if free >> c & 1:
                best = max(best, -value(opp, me | 1 << c))
                if best == 1:
                    break
        return best

    return value


#: X wins by 10 (two threats); a zone that forgot X's own open lines where the search looks
#: only at a block (O's threat) let a move there be left out, and the search said draw.
SKIPPED_WIN = "..OO/...X/.O.X/.X.X/...O/..XO"


@pytest.mark.parametrize(("board", "empty", "games"), [("6x4k4", 12, 40), ("5x5k4", 13, 20)])
def test_moves_left_out_by_relevance_zones_keep_every_value(
    board: str, empty: int, games: int
) -> None:
    """Positions of random games with ``empty`` cells left (deep enough that the search
    leaves out moves outside a refutation's zone, and reads zones from its table): the
    search's value is the plain negamax's, with a small table and a large one."""
    g = Geometry.parse(board)
    value = _negamax(g)
    rng = np.random.default_rng(4)
    positions = [Position.from_string(SKIPPED_WIN, g)] if board == "6x4k4" else []
    while len(positions) < games:
        p = Position.initial(g)
        while len(p.legal_moves) > empty and not p.is_terminal:
            p = p.apply(int(rng.choice(p.legal_moves)))
        if not p.is_terminal:
            positions.append(p)
    for i, p in enumerate(positions):
        x, o = p.bitboards
        me, opp = (x, o) if p.to_move == 1 else (o, x)
        expected = value(me, opp) * (1 if p.to_move == 1 else -1)
        assert prove(p, table_bits=10 if i % 2 else 18).value == expected, p.to_string("/")


def test_moves_into_positions_another_search_is_inside_are_deferred_not_dropped() -> None:
    """In a table shared with other processes, a search defers a move into a position that
    another search has marked, and comes back to it after its other moves. Positions marked
    as another search's (here: every position a move or two from each root): the values are
    the plain negamax's, the search orders its moves otherwise (its node counts change), and
    it takes away every mark of its own and none of the other's."""
    g = Geometry(4, 4, 4)
    t = _tables(g)
    value = _negamax(g)
    rng = np.random.default_rng(5)
    changed = 0
    for _ in range(24):
        p = Position.initial(g)
        for _ in range(int(rng.integers(4, 8))):
            if not p.is_terminal:
                p = p.apply(int(rng.choice(p.legal_moves)))
        if p.is_terminal:
            continue
        plain = prove(p, table_bits=12)
        table = ProofTable(12)
        table.marks = np.zeros(1 << 10, dtype=np.int64)
        for first in p.legal_moves:
            after = p.apply(first)
            for child in [after] + [after.apply(m) for m in after.legal_moves[::3]]:
                x, o = child.bitboards
                imgs = np.zeros((t.bitw.shape[0], 2), dtype=np.int64)
                for c in range(g.cells):
                    imgs[:, 0] |= t.bitw[:, c] if x >> c & 1 else 0
                    imgs[:, 1] |= t.bitw[:, c] if o >> c & 1 else 0
                slots.mark(table.marks, *slots.canonical(imgs)[:2])
        others = table.marks.copy()
        proof = prove(p, table=table)
        x, o = p.bitboards
        me, opp = (x, o) if p.to_move == 1 else (o, x)
        assert proof.value == plain.value == value(me, opp) * (1 if p.to_move == 1 else -1)
        assert (table.marks == others).all()
        changed += proof.nodes != plain.nodes
    assert changed > 0


def test_what_the_kernel_stores_the_slots_read_back() -> None:
    """The kernel writes entries through the slots' functions as compiled into it: an entry
    of every position it stored decodes, with the seal as it is now, to a key in its bucket."""
    table = ProofTable(12)
    prove(Position.initial(Geometry(4, 4, 4)), table=table)
    used = np.flatnonzero(table.rows[:, 2])
    assert used.size > 10
    for slot in used:
        kx, ko = int(slots.key(table.rows, slot)), int(table.rows[slot, 1])
        assert slots.bucket(kx, ko, table.slots - 1) == slot & ~1
        assert slots.probe(table.rows, slot & ~1, kx, ko)[0] == table.rows[slot, 2]
