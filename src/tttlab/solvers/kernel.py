"""The compiled negamax of the proof search (:mod:`tttlab.solvers.bitboard` holds the
design notes, the table and the entry point, :func:`~tttlab.solvers.bitboard.prove`)."""

from __future__ import annotations

import numba as nb
import numpy as np

from tttlab.solvers import alphabeta
from tttlab.solvers.alphabeta import EXACT, LOWER, UPPER

__all__ = ["BEST", "BUDGET", "STOP", "STORED", "VISITED", "pairing_of", "search"]

_settles = nb.njit(cache=True, inline="always")(alphabeta.settles)

#: nodes[...]: what the search shares with its caller (the root's best move, as a cell).
VISITED, BUDGET, STORED, STOP, BEST = 0, 1, 2, 3, 4


@nb.njit(cache=True, inline="always")
def _bits(x: int) -> int:
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@nb.njit(cache=True, inline="always")
def _slot(kx: int, ko: int, mask: int) -> int:
    h = kx * 0x7E3779B97F4A7C15 + ko * 0x3C6EF372FE94F82B
    return (h ^ (h >> 29) ^ (h >> 41)) & mask


@nb.njit(cache=True, inline="always")
def _store(
    table: np.ndarray,
    slot: int,
    kx: int,
    ko: int,
    value: int,
    flag: int,
    place: int,
    nodes: np.ndarray,
) -> None:
    """Write an entry: the canonical pair, then value + 1 (never 0, so 0 marks an empty
    slot), the flag, and 1 + the best move's canonical place (0: none)."""
    if table[slot, 2] == 0:
        nodes[STORED] += 1  # a new entry (an overwritten one is not)
    table[slot, 0] = kx
    table[slot, 1] = ko
    table[slot, 2] = (value + 1) | (flag << 2) | ((place + 1) << 4)


#: Steps a pairing search may take at one node before it gives up (no bound then).
PAIRING_STEPS = 64


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
            c = _bits(live[i] & free)
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


@nb.njit(cache=True, nogil=True)
def holds_by_pairing(
    attacker: int, defender: int, lines: np.ndarray, full: int, scratch: np.ndarray
) -> bool:
    """Whether the defender has a pairing: disjoint pairs of empty cells such that every line
    free of the defender's marks contains a whole pair. Then, answering each of the attacker's
    moves in a pair with its partner (and anything else anyhow), the defender keeps the
    attacker from completing a line, whoever is to move. ``scratch``: 4 × max(lines, 2) int64
    rows (the lines, their cover counts, the step counter and the pair count, the pairs)."""
    n = 0
    for i in range(lines.shape[0]):
        if lines[i] & defender == 0:
            scratch[0, n] = lines[i]
            scratch[1, n] = 0
            n += 1
    if n == 0:
        return True
    scratch[2, 0] = PAIRING_STEPS
    scratch[2, 1] = 0
    return _cover(scratch[0], n, scratch[1], full & ~(attacker | defender), scratch[2], scratch[3])


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


@nb.njit(cache=True, nogil=True)
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
    pairings: bool,
) -> int:
    nodes[VISITED] += 1
    if (nodes[VISITED] & 4095) == 0 and nodes[STOP] != 0:
        nodes[BUDGET] = 0  # told to stop: every caller now sees the budget spent
    if nodes[VISITED] > nodes[BUDGET]:
        return 0  # over budget: the caller discards the result
    occupied = me | opp
    if occupied == full:
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
        return 0  # no line can be completed any more
    n_threats = _bits(threats)
    if n_threats >= 2:
        return -1  # two different cells to block: one of them wins next move
    low = -1 if opp_live else 0
    high = 1 if me_live else 0
    if high <= alpha:
        return high
    if low >= beta:
        return low

    kx = imgs[0, 0]
    ko = imgs[0, 1]
    canon = 0  # the symmetry whose image is the canonical one
    for s in range(1, imgs.shape[0]):
        x = imgs[s, 0]
        if x < kx or (x == kx and imgs[s, 1] < ko):
            kx = x
            ko = imgs[s, 1]
            canon = s
    slot = _slot(kx, ko, table.shape[0] - 1)
    hint = -1
    info = table[slot, 2]
    if info != 0 and table[slot, 0] == kx and table[slot, 1] == ko:
        value = int(info & 3) - 1
        flag = (info >> 2) & 3
        if ply > 0 and _settles(flag, value, alpha, beta):
            return value  # (the root is searched on, so that it names its move)
        if info >> 4 > 0:  # stored as 1 + a place of the canonical image
            hint = perms[canon, (info >> 4) - 1]

    if pairings:
        # a pairing of the other side over my lines: I cannot win; mine over theirs: nor they
        if high > 0 and holds_by_pairing(me, opp, lines, full, scratch):
            high = 0
        if low < 0 and holds_by_pairing(opp, me, lines, full, scratch):
            low = 0
        if high <= alpha or low >= beta or low == high:
            value = high if high <= alpha else low
            flag = EXACT if low == high else (UPPER if high <= alpha else LOWER)
            _store(table, slot, kx, ko, value, flag, -1, nodes)
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
    for i in range(n):
        cell = moves[ply, i]
        bit = 1 << cell
        for s in range(imgs.shape[0]):
            imgs[s, side] |= bitw[s, cell]
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
            pairings,
        )
        for s in range(imgs.shape[0]):
            imgs[s, side] &= ~bitw[s, cell]
        if nodes[VISITED] > nodes[BUDGET]:
            return 0
        if value > best:
            best = value
            best_move = cell
        if best > a:
            a = best
        if a >= b:
            break
    best = min(max(best, low), high)
    if best <= a0:
        flag = EXACT if best == low else UPPER
    elif best >= b:
        flag = EXACT if best == high else LOWER
    else:
        flag = EXACT
    _store(
        table, slot, kx, ko, best, flag, places[canon, best_move] if best_move >= 0 else -1, nodes
    )
    if ply == 0:
        nodes[BEST] = best_move
    return best
