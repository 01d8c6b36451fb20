"""Pairing strategies, the proof search's bound (:mod:`tttlab.solvers.kernel`) and the
certificates' leaves (:mod:`tttlab.solvers.certificate`): disjoint pairs of empty cells with a
whole pair in every line still open to the attacker, found by compiled backtracking."""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["PAIRING_STEPS", "bit_index", "bits", "holds_by_pairing", "pair_lines_of", "pairing_of"]


@nb.njit(cache=True, inline="always")
def bits(x: int) -> int:
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


#: Steps a pairing search may take at one node before it gives up (no bound then).
PAIRING_STEPS = 128


@nb.njit(cache=True, nogil=True)
def _cover(
    live: np.ndarray,
    n: int,
    cov: np.ndarray,
    free: int,
    steps: np.ndarray,
    chosen: np.ndarray,
) -> bool:
    """Whether disjoint pairs of ``free`` cells can cover every line ``live[i]`` not yet
    covered (``cov[i] == 0``), each by a pair inside it: backtracking over the line with the
    fewest free cells, within ``steps[0]`` steps. The pairs chosen so far are
    ``chosen[:steps[1]]``: all of them once it returns True, none it added if False."""
    steps[0] -= 1
    if steps[0] < 0:
        return False
    best = -1
    fewest = 65
    for i in range(n):
        if cov[i] == 0:
            c = bits(live[i] & free)
            if c < 2:
                return False
            if c < fewest:
                fewest = c
                best = i
    if best < 0:
        return True
    firsts = live[best] & free
    while firsts:
        a = firsts & -firsts
        firsts ^= a
        seconds = firsts
        while seconds:
            b = seconds & -seconds
            seconds ^= b
            pair = a | b
            chosen[steps[1]] = pair
            steps[1] += 1
            for j in range(n):
                if live[j] & pair == pair:
                    cov[j] += 1
            found = _cover(live, n, cov, free & ~pair, steps, chosen)
            for j in range(n):
                if live[j] & pair == pair:
                    cov[j] -= 1
            if found:
                return True
            steps[1] -= 1
    return False


#: A de Bruijn sequence for 64 bits and its table: the index of a word's only set bit.
_DE_BRUIJN = 0x03F79D71B4CB0A89
_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _INDEX[(((_DE_BRUIJN << _i) & ((1 << 64) - 1)) >> 58) & 63] = _i


@nb.njit(cache=True, inline="always")
def bit_index(bit: int) -> int:
    """The index of the one bit set in ``bit``."""
    return int(_INDEX[((bit * _DE_BRUIJN) >> 58) & 63])


@nb.njit(cache=True, nogil=True)
def _cover_mask(
    lines: np.ndarray,
    uncovered: int,
    free: int,
    pair_lines: np.ndarray,
    steps: np.ndarray,
    chosen: np.ndarray,
) -> bool:
    """:func:`_cover` with the lines left to cover as the bits of one word (a board of at
    most 64 lines), a pair's lines read from ``pair_lines[a, b]``: the same choices in the
    same order, so the same answer and the same pairs."""
    steps[0] -= 1
    if steps[0] < 0:
        return False
    if uncovered == 0:
        return True
    best = -1
    fewest = 65
    rest = uncovered
    while rest:
        low = rest & -rest
        rest ^= low
        c = bits(lines[bit_index(low)] & free)
        if c < fewest:  # (fewer than two: no pair covers the line)
            if c < 2:
                return False
            fewest, best = c, bit_index(low)
    firsts = lines[best] & free
    while firsts:
        a = firsts & -firsts
        firsts ^= a
        ia = bit_index(a)
        seconds = firsts
        while seconds:
            b = seconds & -seconds
            seconds ^= b
            chosen[steps[1]] = a | b
            steps[1] += 1
            left = uncovered & ~pair_lines[ia, bit_index(b)]
            if _cover_mask(lines, left, free & ~(a | b), pair_lines, steps, chosen):
                return True
            steps[1] -= 1
    return False


@nb.njit(cache=True, nogil=True)
def holds_by_pairing(
    attacker: int,
    defender: int,
    lines: np.ndarray,
    full: int,
    scratch: np.ndarray,
    pair_lines: np.ndarray,
    steps: int,
) -> bool:
    """Whether the defender has a pairing: disjoint pairs of empty cells such that every line
    free of the defender's marks contains a whole pair. Then, answering each of the attacker's
    moves in a pair with its partner (and anything else anyhow), the defender keeps the
    attacker from completing a line, whoever is to move. ``scratch``: 4 × max(lines, 2) int64
    rows (the lines, their cover counts, the step counter and the pair count, the pairs).
    ``pair_lines``: :func:`pair_lines_of` the lines (empty where there are over 64)."""
    scratch[2, 0] = steps
    scratch[2, 1] = 0
    free = full & ~(attacker | defender)
    if pair_lines.shape[0] > 0:
        uncovered = 0
        for i in range(lines.shape[0]):
            if lines[i] & defender == 0:
                uncovered |= 1 << i
        return _cover_mask(lines, uncovered, free, pair_lines, scratch[2], scratch[3])
    n = 0
    for i in range(lines.shape[0]):
        if lines[i] & defender == 0:
            scratch[0, n] = lines[i]
            scratch[1, n] = 0
            n += 1
    if n == 0:
        return True
    return _cover(scratch[0], n, scratch[1], free, scratch[2], scratch[3])


def pair_lines_of(lines: np.ndarray, cells: int) -> np.ndarray:
    """``[a, b]``: the lines through both cells a and b, as the bits of one word (bit i: line
    i); a 0 × 0 array for boards of over 64 lines, whose pairings take the slower path."""
    if len(lines) > 64:
        return np.zeros((0, 0), dtype=np.int64)
    table = np.zeros((cells, cells), dtype=np.uint64)
    for i, line in enumerate(int(m) & ((1 << 64) - 1) for m in lines):
        on = [c for c in range(cells) if line >> c & 1]
        for a in on:
            table[a, on] |= np.uint64(1 << i)
    return table.view(np.int64)


def pairing_of(open_lines: np.ndarray, free: int, steps: int) -> list[int] | None:
    """The pairs (as two-bit masks) that :func:`holds_by_pairing`'s search finds for the
    lines ``open_lines`` (masks, none holding the defender's mark) over the ``free`` cells,
    within ``steps`` steps; None when it finds none. The certificates' pairing leaves."""
    n = len(open_lines)
    scratch = np.zeros((4, max(n, 2)), dtype=np.int64)
    scratch[0, :n] = open_lines
    scratch[2, 0] = steps
    if n and not _cover(scratch[0], n, scratch[1], free, scratch[2], scratch[3]):
        return None
    return [int(pair) for pair in scratch[3, : scratch[2, 1] if n else 0]]
