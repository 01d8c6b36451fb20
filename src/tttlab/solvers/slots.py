"""The proof table's slots as the compiled search (:mod:`tttlab.solvers.kernel`) reads and
writes them, and the marks of the positions being searched.

An entry is five words: X's canonical bitboard sealed with the other four, O's, the info
word (value + 1 in bits 0-1, the flag in 2-3, 1 + the best move's place in 4-15, the
position's empty cells from bit :data:`EMPTIES`), and the zones of its two claims. A table
shared by searches in other processes (:meth:`~tttlab.solvers.prooftable.ProofTable.shared`)
is written while they read it, a word at a time, and two processes may write one slot at
once: a slot holding words of two entries fails its seal and is taken as absent (lockless
hashing, Hyatt and Mann 2002), so what a search uses is a whole entry that some search wrote
(unless a mixed slot's words happen to decode, through the seal's mixing, to a position
searched with the same O marks: a chance of the order of 2^-64 each). A probe reads each
word once, into the values it checks and uses.

The marks (a small array beside a shared table's rows; one word where the table is not
shared) say which positions some search is inside now. A search that would enter a position
marked by another searches that move after the node's other moves (without waiting): the
other search has often stored it by then (ABDADA, Weill 1996). A mark only orders moves, so a
stale one (left by a killed process) or a lost one costs time, never a wrong value.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = [
    "EMPTIES",
    "PLACES",
    "bucket",
    "busy",
    "canonical",
    "holds",
    "key",
    "mark",
    "probe",
    "seal",
    "store",
    "unmark",
]

#: The info word: 1 + the best move's place in bits 4-15 (masked by PLACES after the shift),
#: the position's empty cells from bit EMPTIES.
PLACES, EMPTIES = 0xFFF, 16


@nb.njit(cache=True, inline="always")
def _hash(kx: int, ko: int) -> int:
    h = kx * 0x7E3779B97F4A7C15 + ko * 0x3C6EF372FE94F82B
    return h ^ (h >> 29) ^ (h >> 41)


@nb.njit(cache=True, inline="always")
def bucket(kx: int, ko: int, mask: int) -> int:
    """The first of the two slots of the position's bucket."""
    return _hash(kx, ko) & mask & ~1


@nb.njit(cache=True, inline="always")
def seal(ko: int, info: int, cannot_win: int, holds: int) -> int:
    """What an entry's X key is stored XOR-ed with: its four other words, each multiplied by
    an odd constant, combined, then mixed (murmur3's finalizer). Not linear in any word, so
    that a slot of words from two entries decodes to an X key unrelated to theirs, which
    no position has (a linear seal let one entry's words with another's info word pass as
    a third position, near the first)."""
    h = (
        (ko * 0x2127599BF4325C37)
        ^ (info * 0x7FB5D329728EA185)
        ^ (cannot_win * 0x1F3D5B79A2C4E687)
        ^ (holds * 0x5851F42D4C957F2D)
    )
    h ^= (h >> 33) & 0x7FFFFFFF  # (the int64 shifted logically: its sign bits masked off)
    h *= 0x3C79AC492BA7B653
    h ^= (h >> 33) & 0x7FFFFFFF
    h *= 0x1C69B3F74AC4AE35
    h ^= (h >> 33) & 0x7FFFFFFF
    return h


@nb.njit(cache=True, inline="always")
def key(table: np.ndarray, slot: int) -> int:
    """X's canonical bitboard of the entry at ``slot``, unsealed."""
    return int(
        table[slot, 0] ^ seal(table[slot, 1], table[slot, 2], table[slot, 3], table[slot, 4])
    )


@nb.njit(cache=True, inline="always")
def holds(table: np.ndarray, slot: int, kx: int, ko: int) -> bool:
    """Whether the slot holds the entry of (kx, ko)."""
    return bool(table[slot, 2] != 0 and table[slot, 1] == ko and key(table, slot) == kx)


@nb.njit(cache=True, inline="always")
def probe(table: np.ndarray, slot: int, kx: int, ko: int) -> tuple[int, int, int]:
    """The bucket's entry for (kx, ko): its info word and zones (info 0: none), each word read
    once, so that what is used is what passed the seal."""
    for s in range(slot, slot + 2):
        word, o, info = table[s, 0], table[s, 1], table[s, 2]
        cannot_win, zone = table[s, 3], table[s, 4]
        if info != 0 and o == ko and word ^ seal(o, info, cannot_win, zone) == kx:
            return info, cannot_win, zone
    return 0, 0, 0


@nb.njit(cache=True, inline="always")
def store(
    table: np.ndarray, slot: int, kx: int, ko: int, info: int, cannot_win: int, zone: int
) -> int:
    """Write the entry into the bucket at ``slot``; the number of slots that were empty and
    now are not. The bucket's first slot keeps the entry of the position with more empty
    cells (the bigger subtree, dearer to search again), the one it displaces moving to the
    second slot; the second takes any other."""
    new = 0
    if holds(table, slot + 1, kx, ko):
        slot += 1
    elif not holds(table, slot, kx, ko):
        first = table[slot, 2]
        if first != 0 and info >> EMPTIES < first >> EMPTIES:
            slot += 1
        elif first != 0:
            if table[slot + 1, 2] == 0:
                new += 1
            for w in range(5):  # (a slot rewritten meanwhile moves as a mix: failing its seal)
                table[slot + 1, w] = table[slot, w]
    if table[slot, 2] == 0:
        new += 1  # a new entry (an overwritten one is not)
    table[slot, 0] = kx ^ seal(ko, info, cannot_win, zone)
    table[slot, 1] = ko
    table[slot, 2] = info
    table[slot, 3] = cannot_win
    table[slot, 4] = zone
    return new


@nb.njit(cache=True, inline="always")
def canonical(imgs: np.ndarray) -> tuple[int, int, int]:
    """The smallest (X, O) pair among the position's images, and the symmetry giving it."""
    kx = imgs[0, 0]
    ko = imgs[0, 1]
    canon = 0
    for s in range(1, imgs.shape[0]):
        x = imgs[s, 0]
        if x < kx or (x == kx and imgs[s, 1] < ko):
            kx = x
            ko = imgs[s, 1]
            canon = s
    return kx, ko, canon


@nb.njit(cache=True, inline="always")
def _signature(kx: int, ko: int) -> int:
    return (kx * 0x2545F4914F6CDD1D) ^ (ko * 0x9E3779B97F4A7C1) | 1  # never 0: 0 is no mark


@nb.njit(cache=True, inline="always")
def busy(marks: np.ndarray, kx: int, ko: int) -> bool:
    """Whether some search is inside the position now (as far as the marks tell)."""
    return bool(marks[_hash(kx, ko) & (marks.shape[0] - 1)] == _signature(kx, ko))


@nb.njit(cache=True, inline="always")
def mark(marks: np.ndarray, kx: int, ko: int) -> int:
    """Mark the position as being searched; the mark's place, or -1 if its place was taken."""
    place: int = _hash(kx, ko) & (marks.shape[0] - 1)
    if marks[place] != 0:
        return -1
    marks[place] = _signature(kx, ko)
    return place


@nb.njit(cache=True, inline="always")
def unmark(marks: np.ndarray, place: int, kx: int, ko: int) -> None:
    """Take the mark at ``place`` away, if it is still the position's."""
    if place >= 0 and marks[place] == _signature(kx, ko):
        marks[place] = 0
