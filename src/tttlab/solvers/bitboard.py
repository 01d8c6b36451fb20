"""Compiled proof search for bigger boards: negamax with alpha-beta over bitboards.

- Boards are two int64 bitboards (at most 39 cells, so the sign bit is never used).
- The transposition table is keyed by the exact canonical id: the smallest base-3 id over the
  board's symmetries. One id per symmetry is kept up to date move by move (a move adds
  ``mark · 3**j`` to each, where j is the cell's place in that symmetric image), so no
  hashing of whole boards and no collisions.
- Move ordering: an immediate win is taken at once; against two or more immediate threats
  the position is lost; against one, the block is the only move searched; otherwise the move
  stored in the table comes first, then cells on more lines.
- Values are +1 / 0 / −1 for the side to move (a proof of the game value, not of distances).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt

from tttlab.errors import TttlabError
from tttlab.game import Geometry, Position
from tttlab.limits import SEARCH_CELLS
from tttlab.solvers import alphabeta
from tttlab.solvers.alphabeta import EXACT, LOWER, UPPER

__all__ = ["MAX_SEARCH_CELLS", "Proof", "ProofTable", "SearchTooLarge", "prove"]

_settles = nb.njit(cache=True, inline="always")(alphabeta.settles)


@nb.njit(cache=True, inline="always")
def _bits(x: int) -> int:
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@nb.njit(cache=True)
def _negamax(
    me: int,
    opp: int,
    mover: int,
    alpha: int,
    beta: int,
    ids: np.ndarray,
    lines: np.ndarray,
    k: int,
    order: np.ndarray,
    weights: np.ndarray,
    keys: np.ndarray,
    vals: np.ndarray,
    flags: np.ndarray,
    best_moves: np.ndarray,
    full: int,
    nodes: np.ndarray,
) -> int:
    nodes[0] += 1
    if nodes[0] > nodes[1]:
        return 0  # over budget: the caller sees nodes[0] > nodes[1] and discards the result
    occupied = me | opp
    if occupied == full:
        return 0
    threats = 0
    for i in range(lines.shape[0]):
        line = lines[i]
        if line & opp == 0 and _bits(line & me) == k - 1:
            return 1  # one more mark completes a line
        if line & me == 0 and _bits(line & opp) == k - 1:
            threats |= line & ~opp
    n_threats = _bits(threats)
    if n_threats >= 2:
        return -1  # two different cells to block: one of them wins next move

    canon = ids[0]
    for s in range(1, ids.shape[0]):
        if ids[s] < canon:
            canon = ids[s]
    mask = keys.shape[0] - 1
    slot = ((canon * 0x9E3779B1) ^ (canon >> 17)) & mask
    hint = -1
    if keys[slot] == canon:
        value = int(vals[slot])
        flag = flags[slot]
        if _settles(flag, value, alpha, beta):
            return value
        hint = int(best_moves[slot])

    alpha0 = alpha
    best = -2
    best_move = -1
    n = order.shape[0]
    for step in range(n + 1):
        if step == 0:
            if n_threats == 1:
                cell = 0
                while not (threats >> cell) & 1:
                    cell += 1
            elif hint >= 0:
                cell = hint
            else:
                continue
        else:
            if n_threats == 1:
                break
            cell = order[step - 1]
            if cell == hint:
                continue
        bit = 1 << cell
        if occupied & bit:
            continue
        for s in range(ids.shape[0]):
            ids[s] += mover * weights[s, cell]
        value = -_negamax(
            opp,
            me | bit,
            3 - mover,
            -beta,
            -alpha,
            ids,
            lines,
            k,
            order,
            weights,
            keys,
            vals,
            flags,
            best_moves,
            full,
            nodes,
        )
        for s in range(ids.shape[0]):
            ids[s] -= mover * weights[s, cell]
        if value > best:
            best = value
            best_move = cell
        if best > alpha:
            alpha = best
        if alpha >= beta:
            break
    if best <= alpha0:
        flag = UPPER
    elif best >= beta:
        flag = LOWER
    else:
        flag = EXACT
    if keys[slot] < 0:
        nodes[2] += 1  # a new entry (an overwritten one is not)
    keys[slot] = canon
    vals[slot] = best
    flags[slot] = flag
    best_moves[slot] = best_move
    return best


#: Boards above this many cells are not searched (see :mod:`tttlab.limits`).
MAX_SEARCH_CELLS = SEARCH_CELLS
#: Default node budget of one proof (5×5 with k = 4 needs 15 million).
DEFAULT_NODE_BUDGET = 400_000_000


class SearchTooLarge(TttlabError):
    """A proof search that is refused, or that ran out of its node budget."""


class ProofTable:
    """The proof search's transposition table, which several proofs on one board may share:
    an entry is a fact about a position (its value for the mover, or a bound on it), true
    whatever the root, so a later proof reuses what an earlier one found. Judging many
    positions of one game (sampled evaluation) then costs far less than a table per proof.
    """

    def __init__(self, bits: int) -> None:
        size = 1 << bits
        self.keys = np.full(size, -1, dtype=np.int64)
        self.vals = np.zeros(size, dtype=np.int8)
        self.flags = np.zeros(size, dtype=np.int8)
        self.best_moves = np.full(size, -1, dtype=np.int8)
        self.entries = 0

    @property
    def slots(self) -> int:
        return int(self.keys.shape[0])

    def clear(self) -> None:
        """Forget everything (after a search stopped half-way, whose entries are not facts)."""
        self.keys.fill(-1)
        self.best_moves.fill(-1)
        self.entries = 0


@dataclass(frozen=True)
class Proof:
    """The value of a position under perfect play, and what it took to prove it."""

    value: int  # from X's side: +1 X wins, 0 draw, −1 O wins
    nodes: int
    table_entries: int
    table_slots: int
    seconds: float


def _tables(
    geometry: Geometry,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    lines = geometry.line_masks
    # weights[s, c] = 3**j where cell c lands at place j of symmetry s's image.
    perms = np.array(geometry.symmetries)
    weights = np.zeros((len(perms), geometry.cells), dtype=np.int64)
    for s, perm in enumerate(perms):
        for j, c in enumerate(perm):
            weights[s, c] = 3**j
    through = np.array([len(geometry.lines_through[c]) for c in range(geometry.cells)])
    centre_r, centre_c = (geometry.rows - 1) / 2, (geometry.cols - 1) / 2
    dist = [
        abs(c // geometry.cols - centre_r) + abs(c % geometry.cols - centre_c)
        for c in range(geometry.cells)
    ]
    order = np.array(
        sorted(range(geometry.cells), key=lambda c: (-through[c], dist[c], c)), dtype=np.int64
    )
    return lines, weights, order


def prove(
    position: Position,
    table_bits: int = 23,
    node_budget: int = DEFAULT_NODE_BUDGET,
    table: ProofTable | None = None,
) -> Proof:
    """The game-theoretic value of ``position`` (from X's side), by compiled search, with a
    table of ``2**table_bits`` slots, or ``table`` (shared with other proofs on the board).

    >>> prove(Position.initial()).value
    0
    """
    g = position.geometry
    if g.cells > MAX_SEARCH_CELLS:
        raise SearchTooLarge(
            f"{g.name} has {g.cells} cells; proof search is limited to {MAX_SEARCH_CELLS} cells"
        )
    if position.is_terminal:
        return Proof(position.utility, 0, 0, 0, 0.0)
    lines, weights, order = _tables(g)
    x_bits, o_bits = position.bitboards
    mover = int(position.to_move)
    me, opp = (x_bits, o_bits) if mover == 1 else (o_bits, x_bits)
    ids = np.array(
        [
            sum(position.cells[c] * int(weights[s, c]) for c in range(g.cells))
            for s in range(weights.shape[0])
        ],
        dtype=np.int64,
    )
    table = table if table is not None else ProofTable(table_bits)
    nodes = np.array([0, node_budget, table.entries], dtype=np.int64)  # visited, budget, stored
    full = (1 << g.cells) - 1
    started = time.perf_counter()
    value = _negamax(
        me,
        opp,
        mover,
        -1,
        1,
        ids,
        lines,
        g.k,
        order,
        weights,
        table.keys,
        table.vals,
        table.flags,
        table.best_moves,
        full,
        nodes,
    )
    seconds = time.perf_counter() - started
    table.entries = int(nodes[2])
    if nodes[0] > node_budget:
        table.clear()
        raise SearchTooLarge(
            f"{g.name} was not proved within {node_budget:,} nodes ({seconds:.0f} s); "
            "the search was stopped"
        )
    x_value = value if mover == 1 else -value
    return Proof(int(x_value), int(nodes[0]), table.entries, table.slots, seconds)
