"""Compiled (numba) enumeration of the reachable state space, lean in memory.

Every move adds ``3**i`` or ``2 * 3**i`` to the base-3 id, so children always have larger ids
than their parents. One forward sweep over the id space in increasing order, with a bitmap of
the ids seen, therefore marks every reachable position without any sort: a position is
expanded when the sweep reaches it, and all of its parents were swept before. The bitmap has
``3**cells`` bits (5.4 MB on 4×4, 16 MB on the largest enumerable boards), far smaller than the
tables it produces. A prefix count of set bits per 64-bit word (the *rank*) then turns any id
into its index in the sorted table in constant time, which fills the move table and the
canonical index in one parallel pass, with no search.

Nothing here holds a Python object per position. The module is imported only when a table is
built, so importing :mod:`tttlab.game` does not load numba.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit, prange

from tttlab.game.geometry import Geometry

if TYPE_CHECKING:
    from tttlab.game.statespace import StateSpace

__all__ = [
    "TABLE_FORMAT",
    "build_tables",
    "counts",
    "decode_boards",
    "game_tree",
    "path_counts",
    "symmetries",
]


#: The version of what :func:`build_tables` produces. The disk cache is keyed by it (not by
#: the package version), and ``tests/game/test_compiled.py`` pins a digest of the tables of
#: several boards to it: a change to the enumerator's output fails that test until this
#: number goes up (and the digest is recorded), so no cache ever serves stale tables.
TABLE_FORMAT = 2


@njit(cache=True, inline="always")
def _popcount(x: np.uint64) -> int:  # pragma: no cover - compiled
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def _winner(digits: np.ndarray, lines: np.ndarray) -> Any:  # pragma: no cover
    """1 if X has a line, else 2 if O has one, else 0 (X first, as the Python reference)."""
    o_wins = False
    for line in range(lines.shape[0]):
        first = digits[lines[line, 0]]
        if first == 0:
            continue
        same = True
        for j in range(1, lines.shape[1]):
            if digits[lines[line, j]] != first:
                same = False
                break
        if same:
            if first == 1:
                return np.int8(1)
            o_wins = True
    return np.int8(2) if o_wins else np.int8(0)


@njit(cache=True, inline="always")
def _digits(state: int, digits: np.ndarray) -> tuple[int, int]:  # pragma: no cover - compiled
    """Write the cell codes of ``state`` into ``digits``; return the counts of X and O."""
    x_count = 0
    o_count = 0
    for c in range(digits.shape[0]):
        d = state % 3
        digits[c] = d
        state //= 3
        if d == 1:
            x_count += 1
        elif d == 2:
            o_count += 1
    return x_count, o_count


@njit(cache=True)
def _sweep(
    cells: int, weights: np.ndarray, lines: np.ndarray
) -> np.ndarray:  # pragma: no cover - compiled
    """The bitmap of every reachable id: bit ``id % 64`` of word ``id // 64``."""
    total = weights[cells - 1] * 3
    words = (total + 63) // 64
    seen = np.zeros(words, dtype=np.uint64)
    seen[0] = np.uint64(1)
    digits = np.zeros(cells, dtype=np.int8)
    for word in range(words):
        b = 0
        while b < 64:
            # Read again at every bit: children are larger, so bits set above b in this word
            # by the states just expanded are found too.
            bits = seen[word] >> np.uint64(b)
            if bits == 0:
                break
            if bits & np.uint64(1):
                state = word * 64 + b
                x_count, o_count = _digits(state, digits)
                marks = x_count + o_count
                if marks < cells and _winner(digits, lines) == 0:
                    mover = 1 if marks % 2 == 0 else 2
                    for c in range(cells):
                        if digits[c] == 0:
                            child = state + mover * weights[c]
                            seen[child >> 6] |= np.uint64(1) << np.uint64(child & 63)
            b += 1
    return seen


@njit(cache=True)
def _ranks(seen: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """``rank[w]``: how many reachable ids lie in the words before word ``w`` (one extra entry
    at the end holds the total)."""
    rank = np.empty(seen.shape[0] + 1, dtype=np.int64)
    count = 0
    for w in range(seen.shape[0]):
        rank[w] = count
        count += _popcount(seen[w])
    rank[seen.shape[0]] = count
    return rank


@njit(cache=True)
def _ids(seen: np.ndarray, rank: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    ids = np.empty(rank[-1], dtype=np.int64)
    for w in prange(seen.shape[0]):
        bits = seen[w]
        i = rank[w]
        b = 0
        while bits != 0:
            if bits & np.uint64(1):
                ids[i] = w * 64 + b
                i += 1
            bits >>= np.uint64(1)
            b += 1
    return ids


@njit(cache=True, inline="always")
def _index(state: int, seen: np.ndarray, rank: np.ndarray) -> Any:  # pragma: no cover - compiled
    word = state >> 6
    below = seen[word] & ((np.uint64(1) << np.uint64(state & 63)) - np.uint64(1))
    return rank[word] + _popcount(below)


@njit(cache=True, parallel=True)
def _fill(
    ids: np.ndarray,
    seen: np.ndarray,
    rank: np.ndarray,
    cells: int,
    weights: np.ndarray,
    lines: np.ndarray,
    perms: np.ndarray,
    nxt: np.ndarray,
    terminal: np.ndarray,
    winner: np.ndarray,
    ply: np.ndarray,
    canonical: np.ndarray,
) -> None:  # pragma: no cover - compiled
    n = ids.shape[0]
    for i in prange(n):
        digits = np.empty(cells, dtype=np.int8)
        x_count, o_count = _digits(ids[i], digits)
        w = _winner(digits, lines)
        marks = x_count + o_count
        over = w != 0 or marks == cells
        mover = 2 if x_count > o_count else 1
        winner[i] = w
        ply[i] = marks
        terminal[i] = over
        for c in range(cells):
            if over or digits[c] != 0:
                nxt[i, c] = -1
            else:
                nxt[i, c] = _index(ids[i] + mover * weights[c], seen, rank)
        canonical[i] = _index(_smallest_image(digits, ids[i], perms, weights)[0], seen, rank)


@njit(cache=True, inline="always")
def _smallest_image(
    digits: np.ndarray,
    state: int,
    perms: np.ndarray,
    weights: np.ndarray,
) -> tuple[int, int, int]:  # pragma: no cover - compiled
    """The smallest id among the images of a position, the first permutation that gives
    it (the identity comes first), and how many permutations leave the position unchanged."""
    best = state
    which = 0
    fixed = 0
    for k in range(perms.shape[0]):
        image = 0
        for c in range(digits.shape[0]):
            image += digits[perms[k, c]] * weights[c]
        if image < best:
            best = image
            which = k
        if image == state:
            fixed += 1
    return best, which, fixed


@njit(cache=True, parallel=True)
def _decode(ids: np.ndarray, cells: int) -> np.ndarray:  # pragma: no cover
    out = np.empty((ids.shape[0], cells), dtype=np.int8)
    for i in prange(ids.shape[0]):
        _digits(ids[i], out[i])
    return out


def decode_boards(ids: np.ndarray, geometry: Geometry) -> np.ndarray:
    """Cell codes (N × cells, int8) of an array of base-3 ids, compiled."""
    return _decode(np.ascontiguousarray(ids, dtype=np.int64), geometry.cells)


def build_tables(geometry: Geometry) -> dict[str, np.ndarray]:
    """The stored arrays of :class:`~tttlab.game.statespace.StateSpace`, in ascending id
    order (the boards, the side to move and the symmetry are derived on demand)."""
    cells = geometry.cells
    weights = np.ascontiguousarray(geometry.weights, dtype=np.int64)
    lines = np.array(geometry.lines, dtype=np.int64).reshape(len(geometry.lines), geometry.k)
    perms = np.array(geometry.symmetries, dtype=np.int64)
    seen = _sweep(cells, weights, lines)
    rank = _ranks(seen)
    ids = _ids(seen, rank)
    n = ids.shape[0]
    tables: dict[str, np.ndarray] = {
        "ids": ids,
        "next": np.empty((n, cells), dtype=np.int32),
        "terminal": np.empty(n, dtype=np.bool_),
        "winner": np.empty(n, dtype=np.int8),
        "ply": np.empty(n, dtype=np.int8),
        "canonical": np.empty(n, dtype=np.int32),
    }
    _fill(
        ids,
        seen,
        rank,
        cells,
        weights,
        lines,
        perms,
        tables["next"],
        tables["terminal"],
        tables["winner"],
        tables["ply"],
        tables["canonical"],
    )
    return tables


@njit(cache=True)
def path_counts(nxt: np.ndarray) -> np.ndarray:  # pragma: no cover
    """How many move sequences from the empty board reach each position: one forward sweep,
    since parents come before their children."""
    paths = np.zeros(nxt.shape[0], dtype=np.int64)
    paths[0] = 1
    for i in range(nxt.shape[0]):
        p = paths[i]
        if p == 0:
            continue
        for c in range(nxt.shape[1]):
            j = nxt[i, c]
            if j >= 0:
                paths[j] += p
    return paths


@njit(cache=True)
def counts(
    canonical: np.ndarray, terminal: np.ndarray, winner: np.ndarray
) -> np.ndarray:  # pragma: no cover - compiled
    """Final positions, X wins, O wins, draws, symmetry classes (positions that represent
    themselves) and classes that are not final, in one pass with no temporary array."""
    out = np.zeros(6, dtype=np.int64)
    for i in range(canonical.shape[0]):
        if terminal[i]:
            out[0] += 1
            out[1 + (winner[i] - 1 if winner[i] != 0 else 2)] += 1
        if canonical[i] == i:
            out[4] += 1
            if not terminal[i]:
                out[5] += 1
    return out


@njit(cache=True, parallel=True)
def _symmetries(
    ids: np.ndarray,
    cells: int,
    perms: np.ndarray,
    weights: np.ndarray,
) -> np.ndarray:  # pragma: no cover - compiled
    out = np.empty(ids.shape[0], dtype=np.int8)
    for i in prange(ids.shape[0]):
        digits = np.empty(cells, dtype=np.int8)
        _digits(ids[i], digits)
        out[i] = _smallest_image(digits, ids[i], perms, weights)[1]
    return out


def symmetries(ids: np.ndarray, geometry: Geometry) -> np.ndarray:
    """For each id, the first permutation of ``geometry.symmetries`` that maps it to its
    smallest image."""
    perms = np.array(geometry.symmetries, dtype=np.int64)
    weights = np.ascontiguousarray(geometry.weights, dtype=np.int64)
    return _symmetries(np.ascontiguousarray(ids), geometry.cells, perms, weights)


@njit(cache=True)
def _game_tree(
    nxt: np.ndarray,
    canonical: np.ndarray,
    terminal: np.ndarray,
    winner: np.ndarray,
    ply: np.ndarray,
) -> tuple[int, int, int, int, int]:  # pragma: no cover - compiled
    """Move sequences per symmetry class rather than per position: a symmetry maps
    sequences to sequences, so every member of a class is reached by as many, and each
    member's moves lead into the same classes as the representative's. With ``into[c]``
    the sequences ending anywhere in class c, ``into[d] = sum of into[c]`` over the
    representative's moves from c into d, taken ply by ply."""
    n, cells = nxt.shape
    classes = 0
    for i in range(n):
        if canonical[i] == i:
            classes += 1
    reps = np.empty(classes, dtype=np.int32)  # ascending position indices
    k = 0
    for i in range(n):
        if canonical[i] == i:
            reps[k] = i
            k += 1
    # into[c]: move sequences that end on any member of class c.
    into = np.zeros(classes, dtype=np.int64)
    into[0] = 1  # the empty board is its own class, reached by the empty sequence
    totals = np.zeros(5, dtype=np.int64)  # nodes, games, x_wins, o_wins, draws
    for p in range(cells + 1):  # classes ply by ply: all of a class's parents come first
        for slot in range(classes):
            r = reps[slot]
            if ply[r] != p:
                continue
            total = into[slot]
            totals[0] += total
            if terminal[r]:
                totals[1] += total
                totals[2 + (winner[r] - 1 if winner[r] != 0 else 2)] += total
                continue
            for c in range(cells):
                j = nxt[r, c]
                if j >= 0:
                    into[np.searchsorted(reps, canonical[j])] += total
    return totals[0], totals[1], totals[2], totals[3], totals[4]


def game_tree(space: StateSpace) -> tuple[int, int, int, int, int]:
    """Nodes, complete games, X wins, O wins and draws of the game tree."""
    counts = _game_tree(space.next, space.canonical, space.terminal, space.winner, space.ply)
    return tuple(int(c) for c in counts)  # type: ignore[return-value]
