"""The proof table's slots (:mod:`tttlab.solvers.slots`): the buckets, the seal that makes a
half-written entry absent, and the marks of the positions being searched."""

from __future__ import annotations

import itertools

import numpy as np

from tttlab.solvers import slots
from tttlab.solvers.alphabeta import EXACT, LOWER
from tttlab.solvers.slots import EMPTIES


def _info(value: int, empties: int, flag: int = EXACT, place: int = -1) -> int:
    return (value + 1) | (flag << 2) | ((place + 1) << 4) | (empties << EMPTIES)


def test_a_bucket_keeps_the_entry_of_the_bigger_subtree_first() -> None:
    """Two slots a bucket: the first keeps the entry of the position with more empty cells
    (dearer to search again), displacing its old entry to the second; the second takes any
    other. A long proof started again from its table then finds its big subtrees done."""
    table = np.zeros((2, 5), dtype=np.int64)  # one bucket: every position lands in it
    new = 0

    def store(kx: int, empties: int, value: int = 0) -> list[int]:
        nonlocal new
        new += slots.store(table, 0, kx, 0, _info(value, empties), -1, -1)
        return [int(slots.key(table, 0)), int(slots.key(table, 1))]

    assert store(1, 20) == [1, 0]
    assert store(2, 10) == [1, 2]  # fewer empty cells: the second slot
    assert store(3, 30) == [3, 1]  # more: the first, its old entry to the second
    assert store(4, 5) == [3, 4]
    assert store(4, 50, value=1) == [3, 4]  # a position already in a slot stays there
    assert int(table[1, 2]) & 3 == 2  # its entry updated (value + 1)
    assert int(table[1, 2]) >> EMPTIES == 50
    assert new == 2  # new entries only: both slots were filled once


def test_an_entry_reads_back_whole_from_either_slot() -> None:
    table = np.zeros((4, 5), dtype=np.int64)
    assert slots.probe(table, 2, 5, 9) == (0, 0, 0)  # empty
    slots.store(table, 2, 5, 9, _info(1, 7, LOWER, 3), 0b1010, -1)
    slots.store(table, 2, 6, 9, _info(-1, 12), -1, 0b11)  # more empty cells: the first slot
    assert slots.probe(table, 2, 5, 9) == (_info(1, 7, LOWER, 3), 0b1010, -1)
    assert slots.probe(table, 2, 6, 9) == (_info(-1, 12), -1, 0b11)
    assert slots.holds(table, 3, 5, 9)
    assert not slots.holds(table, 3, 5, 8)
    assert table[3, 0] != 5  # X's key is stored sealed, not as it is


def test_a_half_written_entry_is_never_read() -> None:
    """Processes sharing a table write an entry a word at a time while others read, and two
    may write one slot at once: a slot may hold words of two entries. Whatever the mix, a
    probe for either entry's position finds that entry whole, or nothing: never one entry's
    value or zones under another's key (the same X key with another O key included: all the
    children of a position where O is to move share X's marks), nor under a third key that
    a position may have (a linear seal let one entry's words with another's info word pass
    for the position whose X key differs from the first's by the two info words)."""
    g = np.random.default_rng(7)
    for differ in ("nothing", "x", "o", "both"):
        for _ in range(20):
            kx, ko = (int(v) for v in g.integers(1, 1 << 40, size=2))
            other = (
                kx ^ (1 << int(g.integers(40)) if differ in ("x", "both") else 0),
                ko ^ (1 << int(g.integers(40)) if differ in ("o", "both") else 0),
            )
            rows = np.zeros((2, 2, 5), dtype=np.int64)
            for row, (x, o) in zip(rows, [(kx, ko), other], strict=True):
                info = _info(int(g.integers(-1, 2)), int(g.integers(1, 40)))
                zones = (int(v) for v in g.integers(-1, 1 << 40, size=2))
                slots.store(row, 0, x, o, info, *zones)
            written = [((kx, ko), rows[0, 0]), (other, rows[1, 0])]
            for words in itertools.product((0, 1), repeat=5):
                mixed = np.zeros((2, 5), dtype=np.int64)
                mixed[0] = np.where(np.array(words) == 1, rows[1, 0], rows[0, 0])
                for position, _ in written:
                    whole = [e for p, e in written if p == position and (mixed[0] == e).all()]
                    expected = tuple(int(w) for w in whole[0][2:]) if whole else (0, 0, 0)
                    assert slots.probe(mixed, 0, *position) == expected, (words, differ)
                if not any((mixed[0] == e).all() for _, e in written):
                    # nor as a third position's: the key it decodes to is no 40-cell board's
                    assert slots.key(mixed, 0) >> 40 != 0, (words, differ)


def test_marks_say_which_positions_are_being_searched() -> None:
    marks = np.zeros(1, dtype=np.int64)  # one place: every position lands in it
    assert not slots.busy(marks, 3, 4)
    place = slots.mark(marks, 3, 4)
    assert place == 0
    assert slots.busy(marks, 3, 4)
    assert not slots.busy(marks, 4, 3)
    assert slots.mark(marks, 4, 3) == -1  # its place taken: not marked, and no harm
    slots.unmark(marks, -1, 4, 3)
    slots.unmark(marks, place, 4, 3)  # not its mark: stays
    assert slots.busy(marks, 3, 4)
    slots.unmark(marks, place, 3, 4)
    assert not marks.any()


def test_the_canonical_image_is_the_smallest_pair() -> None:
    imgs = np.array([[5, 1], [3, 9], [3, 2], [4, 0]], dtype=np.int64)
    assert slots.canonical(imgs) == (3, 2, 2)
