"""The compiled negamax of the proof search (:mod:`tttlab.solvers.bitboard` holds the
design notes, the table and the entry point, :func:`~tttlab.solvers.bitboard.prove`)."""

from __future__ import annotations

import numba as nb
import numpy as np

from tttlab.numbacache import cacheable
from tttlab.solvers import alphabeta, slots
from tttlab.solvers.alphabeta import EXACT, LOWER, UPPER
from tttlab.solvers.pairing import PAIRING_STEPS, bit_index, holds_by_pairing
from tttlab.solvers.pairing import bits as _bits
from tttlab.solvers.slots import EMPTIES, PLACES

__all__ = ["BEST", "BUDGET", "MOVES", "SETTLED", "STOP", "STORED", "TRACKED", "VISITED", "search"]

#: The modules whose functions and constants are compiled into the kernel, with digests of
#: their text: numba's cache knows only this file's, and had kept a kernel compiled with an
#: older seal of slots.py (:mod:`tttlab.numbacache`; tests/test_numbacache.py checks them).
COMPILED_FROM = {
    "tttlab.solvers.alphabeta": "2abfd128ee20fc1c",
    "tttlab.solvers.pairing": "a90b81d066d8dff2",
    "tttlab.solvers.slots": "268c77ae9a09a8c1",
}
CACHE = cacheable(COMPILED_FROM)

_settles = nb.njit(cache=CACHE, inline="always")(alphabeta.settles)

#: nodes[...]: what the search shares with its caller (the root's best move, as a cell).
VISITED, BUDGET, STORED, STOP, BEST = 0, 1, 2, 3, 4
#: nodes[SETTLED + p], nodes[MOVES + p] for the plies p < TRACKED: how many of the moves of
#: the position searched at ply p are settled so far, of how many (the progress of a long proof).
SETTLED, MOVES, TRACKED = 5, 13, 8
#: zones[ply, ...]: the cells that a proof at that ply reads (-1: all), for its claim that the
#: side to move cannot win, and for its claim that the side to move holds (cannot lose).
CANNOT_WIN, HOLDS = 0, 1
#: zones[ply, UNPAIRED]: 1 where the search at that ply found no pairing of the other side
#: over the mover's lines. The mover's move leaves those lines and takes a cell, so the
#: reply does not look for the same pairing again.
UNPAIRED = 2


@nb.njit(cache=CACHE, inline="always")
def paired_cells(scratch: np.ndarray) -> int:
    """The cells of the pairs that :func:`holds_by_pairing` found last."""
    cells = 0
    for i in range(scratch[2, 1]):
        cells |= scratch[3, i]
    return cells


@nb.njit(cache=CACHE, inline="always")
def _mapped(zone: int, to: np.ndarray) -> int:
    """A zone's cells moved by a symmetry (``to[c]``: where cell c goes); -1 stays -1."""
    if zone == -1:
        return -1
    out = 0
    while zone:
        low = zone & -zone
        zone ^= low
        out |= 1 << to[bit_index(low)]
    return out


@nb.njit(cache=CACHE, inline="always")
def _store(
    table: np.ndarray,
    slot: int,
    kx: int,
    ko: int,
    value: int,
    flag: int,
    place: int,
    nodes: np.ndarray,
    zones: np.ndarray,
    ply: int,
    to: np.ndarray,
    empties: int,
) -> None:
    """Write an entry (:func:`slots.store`): the canonical pair, value + 1 (never 0, so 0
    marks an empty slot), the flag, 1 + the best move's canonical place (0: none) and the
    empty cells (``empties``), then the zones of its claims at ``ply`` moved onto the
    canonical image (``to``: the symmetry's places)."""
    info = (value + 1) | (flag << 2) | ((place + 1) << 4) | (empties << EMPTIES)
    cannot_win = _mapped(zones[ply, CANNOT_WIN], to)
    holds = _mapped(zones[ply, HOLDS], to)
    nodes[STORED] += slots.store(table, slot, kx, ko, info, cannot_win, holds)


@nb.njit(cache=CACHE, nogil=True)
def search(
    me: int,
    opp: int,
    mover: int,
    alpha: int,
    beta: int,
    ply: int,
    imgs: np.ndarray,
    bitw: np.ndarray,
    places: np.ndarray,
    perms: np.ndarray,
    prior: np.ndarray,
    lines: np.ndarray,
    cell_lines: np.ndarray,
    k: int,
    table: np.ndarray,
    full: int,
    nodes: np.ndarray,
    line_score: np.ndarray,
    moves: np.ndarray,
    scores: np.ndarray,
    scratch: np.ndarray,
    pair_lines: np.ndarray,
    zones: np.ndarray,
    pairings: bool,
    marks: np.ndarray,
) -> int:
    nodes[VISITED] += 1
    if (nodes[VISITED] & 4095) == 0 and nodes[STOP] != 0:
        nodes[BUDGET] = 0  # told to stop: every caller now sees the budget spent
    if nodes[VISITED] > nodes[BUDGET]:
        return 0  # over budget: the caller discards the result
    zones[ply, CANNOT_WIN] = -1  # every cell: the claim for this position alone
    zones[ply, HOLDS] = -1
    occupied = me | opp
    if occupied == full:
        zones[ply, CANNOT_WIN] = zones[ply, HOLDS] = 0
        return 0
    threats = 0
    me_live = False
    opp_live = False
    for i in range(lines.shape[0]):
        line = lines[i]
        mine = line & me
        theirs = line & opp
        score = 0
        if theirs == 0:
            m = _bits(mine)
            if m == k - 1:
                if ply == 0:
                    gap = line & ~me
                    nodes[BEST] = 0
                    while not (gap >> nodes[BEST]) & 1:
                        nodes[BEST] += 1
                return 1  # one more mark completes a line
            me_live = True
            score += 1 << (2 * m)
        if mine == 0:
            m = _bits(theirs)
            if m == k - 1:
                threats |= line & ~opp
            opp_live = True
            score += 1 << (2 * m)
        line_score[ply, i] = score
    if not me_live and not opp_live:
        zones[ply, CANNOT_WIN] = zones[ply, HOLDS] = 0
        return 0  # no line can be completed any more
    n_threats = _bits(threats)
    if n_threats >= 2:
        return -1  # two different cells to block: one of them wins next move
    low = -1 if opp_live else 0
    high = 1 if me_live else 0
    low_zone = -1 if opp_live else 0  # the zones of the bounds' proofs, where they are 0
    high_zone = -1 if me_live else 0
    if high <= alpha:
        zones[ply, CANNOT_WIN] = high_zone
        return high
    if low >= beta:
        zones[ply, HOLDS] = low_zone
        return low

    kx, ko, canon = slots.canonical(imgs)  # canon: the symmetry giving the canonical image
    slot = slots.bucket(kx, ko, table.shape[0] - 1)
    hint = -1
    info, cannot_win, holds = slots.probe(table, slot, kx, ko)
    if info != 0:
        value = int(info & 3) - 1
        flag = (info >> 2) & 3
        if ply > 0 and _settles(flag, value, alpha, beta):
            zones[ply, CANNOT_WIN] = _mapped(cannot_win, perms[canon])
            zones[ply, HOLDS] = _mapped(holds, perms[canon])
            return value  # (the root is searched on, so that it names its move)
        place = (info >> 4) & PLACES
        if place > 0:  # stored as 1 + a place of the canonical image
            hint = perms[canon, place - 1]

    if pairings:
        # a pairing of the other side over my lines: I cannot win; mine over theirs: nor they
        zones[ply, UNPAIRED] = 0
        if high > 0 and alpha >= 0:
            if holds_by_pairing(me, opp, lines, full, scratch, pair_lines, PAIRING_STEPS):
                high = 0
                high_zone = paired_cells(scratch)
            else:
                zones[ply, UNPAIRED] = 1
        if (
            low < 0
            and beta <= 0
            and (ply == 0 or zones[ply - 1, UNPAIRED] == 0)
            and holds_by_pairing(opp, me, lines, full, scratch, pair_lines, PAIRING_STEPS)
        ):
            low = 0
            low_zone = paired_cells(scratch)
        if high <= alpha or low >= beta or low == high:
            if high == 0:
                zones[ply, CANNOT_WIN] = high_zone
            if low == 0:
                zones[ply, HOLDS] = low_zone
            value = high if high <= alpha else low
            flag = EXACT if low == high else (UPPER if high <= alpha else LOWER)
            empties = _bits(full & ~occupied)
            _store(table, slot, kx, ko, value, flag, -1, nodes, zones, ply, places[canon], empties)
            return value

    a0 = a = max(alpha, low)  # the window narrowed by what the live lines allow
    b = min(beta, high)
    n = 0
    if n_threats == 1:
        cell = 0
        while not (threats >> cell) & 1:
            cell += 1
        moves[ply, 0] = cell
        n = 1
    else:
        for cell in range(cell_lines.shape[0]):
            if (occupied >> cell) & 1:
                continue
            score = 0
            for j in range(cell_lines.shape[1]):
                line = cell_lines[cell, j]
                if line < 0:
                    break
                score += line_score[ply, line]
            if score == 0:
                continue  # a dead cell
            score = (1 << 62) if cell == hint else score * 64 + prior[cell]
            # insertion by score, highest first
            i = n
            while i > 0 and scores[ply, i - 1] < score:
                moves[ply, i] = moves[ply, i - 1]
                scores[ply, i] = scores[ply, i - 1]
                i -= 1
            moves[ply, i] = cell
            scores[ply, i] = score
            n += 1

    best = -2
    best_move = -1
    side = mover - 1
    common = -1  # the cells in every refuted move's zone: a move outside one is refuted too
    refuted = 0  # the refuted moves and their zones: the zone of "the mover cannot win"
    kept = -1  # the first move that holds, with its zone: the zone of "the mover holds"
    if ply < TRACKED:
        nodes[SETTLED + ply] = 0
        nodes[MOVES + ply] = n
    shared = marks.shape[0] > 1  # other processes search in this table: mark, and defer
    marked = slots.mark(marks, kx, ko) if shared else -1
    deferred = 0  # moves into positions another search is inside: searched after the others
    settled = 0
    for i in range(2 * n):
        if i >= n and deferred == 0:
            break
        cell = moves[ply, i % n]
        bit = 1 << cell
        if i >= n and not deferred & bit:
            continue
        if a >= 0 and not common & bit:
            best = max(best, 0)  # the replies that refuted a move outside it refute this one
            settled += 1
            continue
        for s in range(imgs.shape[0]):
            imgs[s, side] |= bitw[s, cell]
        if shared and 0 < i < n:  # (the first move is never deferred)
            cx, co, _ = slots.canonical(imgs)
            if slots.busy(marks, cx, co):
                for s in range(imgs.shape[0]):
                    imgs[s, side] &= ~bitw[s, cell]
                deferred |= bit
                continue
        if ply < TRACKED:
            nodes[SETTLED + ply] = settled
        settled += 1
        value = -search(
            opp,
            me | bit,
            3 - mover,
            -b,
            -a,
            ply + 1,
            imgs,
            bitw,
            places,
            perms,
            prior,
            lines,
            cell_lines,
            k,
            table,
            full,
            nodes,
            line_score,
            moves,
            scores,
            scratch,
            pair_lines,
            zones,
            pairings,
            marks,
        )
        for s in range(imgs.shape[0]):
            imgs[s, side] &= ~bitw[s, cell]
        if nodes[VISITED] > nodes[BUDGET]:
            slots.unmark(marks, marked, kx, ko)
            return 0
        if value <= 0:
            refuted |= zones[ply + 1, HOLDS] | bit
            common &= zones[ply + 1, HOLDS]
        if value >= 0 and kept == -1:
            kept = zones[ply + 1, CANNOT_WIN] | bit
        if value > best:
            best = value
            best_move = cell
        if best > a:
            a = best
        if a >= b:
            break
    slots.unmark(marks, marked, kx, ko)
    best = min(max(best, low), high)
    if best <= 0 and (best < b or best == high):
        if high != 0 and n_threats == 1:
            # only the block was searched: the other moves lose only while none of mine
            # completes a line, so the zone keeps two empty cells of each of my open lines
            for i in range(lines.shape[0]):
                gaps = lines[i] & ~occupied
                if lines[i] & opp == 0 and _bits(gaps & refuted) < 2:
                    refuted |= gaps
        zones[ply, CANNOT_WIN] = high_zone if high == 0 else refuted
    if best >= 0 and (best > a0 or best == low):
        zones[ply, HOLDS] = low_zone if low == 0 else kept
    if best <= a0:
        flag = EXACT if best == low else UPPER
    elif best >= b:
        flag = EXACT if best == high else LOWER
    else:
        flag = EXACT
    place = places[canon, best_move] if best_move >= 0 else -1
    empties = _bits(full & ~occupied)
    _store(table, slot, kx, ko, best, flag, place, nodes, zones, ply, places[canon], empties)
    if ply == 0:
        nodes[BEST] = best_move
    return best
