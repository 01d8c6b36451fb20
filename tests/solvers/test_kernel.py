"""The proof search's compiled kernel (:mod:`tttlab.solvers.kernel`): the pairing bound, on
its own and in the search, where it makes published values quick."""

from __future__ import annotations

import numpy as np
import pytest

from tttlab.game import Geometry, Position
from tttlab.solvers.bitboard import _tables, prove
from tttlab.solvers.certificate import pairing
from tttlab.solvers.kernel import holds_by_pairing

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
    assert holds_by_pairing(0, defender, t.lines, t.full, scratch) == holds


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
            if holds_by_pairing(attacker, defender, t.lines, t.full, scratch):
                found += 1
                assert pairing(position, mark, effort=1_000_000) is not None, position
    assert found > 20  # the test reaches positions with pairings
