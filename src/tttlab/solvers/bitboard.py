"""Compiled proof search for bigger boards: negamax with alpha-beta over bitboards.

- Boards are two 64-bit bitboards (the side to move's marks and the other side's).
- The transposition table is keyed exactly, without hashing away information: by the
  canonical pair of X's and O's bitboards, the smallest over the board's symmetries. One pair
  per symmetry is kept up to date move by move (a move sets the cell's bit in that symmetric
  image), so there are no collisions, on every board up to 64 cells. A position hashes to a
  bucket of two slots: the first keeps the entry of the position with more empty cells (the
  bigger subtree), the second takes any other, so a full table keeps its dearest facts (a
  long proof started again from its table finds its big subtrees done).
- Dead cells are never searched. A line is *live* while it holds marks of at most one side;
  a cell on no live line cannot change the result (a mark there is a pass, and in these games
  an extra mark never hurts its owner, so some live cell is at least as good). A side with
  no live line cannot win: that bounds the value at 0 from its side, and where neither side
  has one the game is a draw at once.
- Pairings: before its moves are searched, a position is bounded by pairing strategies. If
  the side not to move has disjoint pairs of empty cells with a whole pair in every line
  still open to the mover, answering each move in a pair with its partner keeps the mover
  from ever completing a line: the value is at most 0 for the mover (and, the other way
  round, at least 0). :func:`~tttlab.solvers.pairing.holds_by_pairing` looks for one
  (within 128 steps; the reply to a move does not look again for the pairing that the
  position before it lacked: the move only took a cell from it).
- Relevance zones (after Hsu et al. 2020): a proof that the side to move cannot win, or
  that it holds, comes with the cells it reads, and stays true when the other side has
  extra marks outside them: a pairing reads its pairs; a reply, its cell and its child's
  zone; a position where every move is refuted, the moves and their zones (and, where only
  a block was searched, two empty cells of each of the mover's open lines). A move outside
  the zone of an earlier refuted move is refuted by the same replies (an extra mark never
  hurts its owner), so it is not searched. Zones are kept in the table with the entries.
- Move ordering: an immediate win is taken at once; against two or more immediate threats
  the position is lost; against one, the block is the only move searched; otherwise the move
  stored in the table comes first, then the live cells by how much they attack and defend
  (each live line through the cell counts 4**m for the m marks it already holds).
- Values are +1 / 0 / −1 for the side to move (a proof of the game value, not of distances).
- A search stops between nodes when its budget of nodes is spent or when it is told to (a
  time limit or Ctrl-C, through a flag that the compiled code reads every 4,096 nodes): the
  search runs in a thread of its own, without the GIL, and the caller waits for it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from tttlab.errors import TttlabError
from tttlab.game import Geometry, Position
from tttlab.game.geometry import int64_word
from tttlab.limits import SEARCH_CELLS
from tttlab.solvers.kernel import (
    BEST,
    BUDGET,
    HOLDS,
    SETTLED,
    STOP,
    STORED,
    TRACKED,
    VISITED,
    search,
)
from tttlab.solvers.pairing import pair_lines_of
from tttlab.solvers.prooftable import ProofTable, ProofTableBoardError

__all__ = [
    "DEFAULT_NODE_BUDGET",
    "MAX_SEARCH_CELLS",
    "UNLIMITED_NODES",
    "Proof",
    "ProofTable",
    "ProofTableBoardError",
    "SearchProgress",
    "SearchStopped",
    "SearchTooLarge",
    "prove",
]

#: Boards above this many cells are not searched (see :mod:`tttlab.limits`).
MAX_SEARCH_CELLS = SEARCH_CELLS
#: Default node budget of one proof (8×4 with k = 4 needs 389 million).
DEFAULT_NODE_BUDGET = 400_000_000
#: A budget that only a time limit (or Ctrl-C) ends.
UNLIMITED_NODES = 1 << 62


class SearchTooLarge(TttlabError):
    """A proof search that is refused, or that ran out of its node budget."""


class SearchStopped(SearchTooLarge):
    """A proof search stopped by its time limit (after ``nodes`` nodes)."""

    nodes: int = 0


@dataclass(frozen=True)
class Proof:
    """The value of a position under perfect play, and what it took to prove it."""

    value: int  # from X's side: +1 X wins, 0 draw, −1 O wins
    nodes: int
    table_entries: int
    table_slots: int
    seconds: float
    best_move: int | None = None  # the root's move that achieves the value (a cell)
    #: 0: ``value`` is the value; within a window (``prove(window=...)``) it may be a bound
    #: instead, -1: the value is at most ``value``, +1: at least ``value``.
    bound: int = 0
    #: The cells that the proof that the side to move holds reads (a bitmask; it stays true
    #: with marks of the other side on any empty cells outside it); None: every cell, or no
    #: such proof (the side to move loses, or the window did not ask).
    holds_zone: int | None = None


@dataclass(frozen=True)
class SearchProgress:
    """Where a running proof stands: the nodes so far, and for the position searched at each
    of the first plies (the root first), how many of its moves are settled, of how many."""

    nodes: int
    seconds: float
    settled: tuple[int, ...]
    moves: tuple[int, ...]

    def describe(self) -> str:
        rate = self.nodes / self.seconds if self.seconds > 0 else 0.0
        plies = ", then ".join(f"{s}/{m}" for s, m in zip(self.settled, self.moves, strict=True))
        return f"{self.nodes:,} nodes ({rate:,.0f} a second); moves settled: {plies}"


@dataclass(frozen=True)
class _Tables:
    lines: npt.NDArray[np.int64]  # each line as a bitmask
    bitw: npt.NDArray[np.int64]  # bitw[s, c]: the bit of cell c in symmetry s's image
    places: npt.NDArray[np.int64]  # places[s, c]: that bit's index
    perms: npt.NDArray[np.int64]  # perms[s, j]: the cell at place j of symmetry s's image
    prior: npt.NDArray[np.int64]  # 0..63, higher for cells on more lines, nearer the centre
    cell_lines: npt.NDArray[np.int64]  # the lines through each cell, padded with -1
    full: int
    pair_lines: npt.NDArray[np.int64]  # [a, b]: the lines through cells a and b, as bits


@cache
def _tables(geometry: Geometry) -> _Tables:
    """Once per board (certificates and sampled judging prove thousands of positions)."""
    lines = np.asarray(geometry.line_masks, dtype=np.int64)
    perms = np.array(geometry.symmetries, dtype=np.int64)
    bitw = np.zeros((len(perms), geometry.cells), dtype=np.int64)
    places = np.zeros((len(perms), geometry.cells), dtype=np.int64)
    for s, perm in enumerate(perms):
        for j, c in enumerate(perm):
            bitw[s, c] = int64_word(1 << j)
            places[s, c] = j
    index = {line: i for i, line in enumerate(geometry.lines)}
    through = geometry.lines_through
    widest = max((len(t) for t in through), default=0)
    cell_lines = np.full((geometry.cells, max(widest, 1)), -1, dtype=np.int64)
    for c, ls in enumerate(through):
        cell_lines[c, : len(ls)] = [index[line] for line in ls]
    centre_r, centre_c = (geometry.rows - 1) / 2, (geometry.cols - 1) / 2
    rank = sorted(
        range(geometry.cells),
        key=lambda c: (
            -len(through[c]),
            abs(c // geometry.cols - centre_r) + abs(c % geometry.cols - centre_c),
            c,
        ),
    )
    prior = np.zeros(geometry.cells, dtype=np.int64)
    for r, c in enumerate(rank):
        prior[c] = max(63 - r, 0)
    full = int64_word((1 << geometry.cells) - 1)
    pair_lines = pair_lines_of(lines, geometry.cells)
    return _Tables(lines, bitw, places, perms, prior, cell_lines, full, pair_lines)


def prove(
    position: Position,
    table_bits: int = 23,
    node_budget: int = DEFAULT_NODE_BUDGET,
    table: ProofTable | None = None,
    time_limit: float | None = None,
    pairings: bool = True,
    window: tuple[int, int] = (-1, 1),
    progress: Callable[[SearchProgress], None] | None = None,
    progress_every: float = 1.0,
    keep_on_stop: bool = False,
    inline: bool = False,
) -> Proof:
    """The game-theoretic value of ``position`` (from X's side), by compiled search, with a
    table of ``2**table_bits`` slots, or ``table`` (shared with other proofs on the board).
    ``pairings=False`` leaves out the pairing bounds (to measure them; the value is the same).
    ``window=(low, high)`` (from X's side, -1 <= low < high <= 1) asks only where the value
    lies against it: at most ``low``, at least ``high`` (:attr:`Proof.bound`), or between
    them exactly; a narrow window is a cheaper question (``(0, 1)``: does X win?).
    ``progress`` is called every ``progress_every`` seconds while the search runs. A search
    stopped (its time limit, a Ctrl-C) forgets its table's entries unless ``keep_on_stop``: they are
    facts all the same (an entry is written only once its subtree is searched through), which
    a later proof with the same table reuses (:mod:`tttlab.solvers.longrun`); a table shared
    with other processes (:meth:`ProofTable.shared`) is never cleared. ``inline``
    searches in the caller's thread, for many small proofs where starting a thread costs more
    than the search: no time limit nor progress then, and a Ctrl-C is heard when it returns.
    Raises :class:`SearchTooLarge` when the node budget is spent, :class:`SearchStopped`
    after ``time_limit`` seconds; a Ctrl-C stops the search too (and is raised again).
    ``position`` may be marks that no game reaches, with the side to move given
    (:class:`~tttlab.solvers.zones.Marks`); a table must not mix those whose side to move is
    not the one their counts give with the others (its key is the marks alone).

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
    x_bits, o_bits = position.bitboards
    mover = int(position.to_move)
    table = table if table is not None else ProofTable(table_bits)
    low, high = window
    if not -1 <= low < high <= 1:
        raise ValueError(f"a window is (low, high) with -1 <= low < high <= 1, not {window}")
    t = _tables(g)
    alpha, beta = (low, high) if mover == 1 else (-high, -low)
    me, opp = (x_bits, o_bits) if mover == 1 else (o_bits, x_bits)
    imgs = np.zeros((t.bitw.shape[0], 2), dtype=np.int64)
    for c in range(g.cells):
        for side, bits in enumerate((x_bits, o_bits)):
            if bits >> c & 1:
                imgs[:, side] |= t.bitw[:, c]
    table.bind(g)
    forget = not keep_on_stop and table.path is None  # a shared table: others' facts too
    # visited, budget, stored, stop, the root's best move; then the progress counters
    nodes = np.zeros(SETTLED + 2 * TRACKED, dtype=np.int64)
    nodes[[BUDGET, STORED, BEST]] = node_budget, table.entries, -1
    depth = g.cells + 1
    line_score = np.zeros((depth, max(len(t.lines), 1)), dtype=np.int64)
    moves = np.zeros((depth, g.cells), dtype=np.int64)
    scores = np.zeros((depth, g.cells), dtype=np.int64)
    scratch = np.zeros((4, max(len(t.lines), 2)), dtype=np.int64)
    zones = np.zeros((depth, 3), dtype=np.int64)
    result: list[int] = []

    finished = threading.Event()

    def run() -> None:
        try:
            result.append(
                search(
                    int64_word(me),
                    int64_word(opp),
                    mover,
                    alpha,
                    beta,
                    0,
                    imgs,
                    t.bitw,
                    t.places,
                    t.perms,
                    t.prior,
                    t.lines,
                    t.cell_lines,
                    g.k,
                    table.rows,
                    t.full,
                    nodes,
                    line_score,
                    moves,
                    scores,
                    scratch,
                    t.pair_lines,
                    zones,
                    pairings,
                    table.marks,
                )
            )
        finally:
            finished.set()

    # The caller waits on an Event, not on Thread.join: a KeyboardInterrupt that lands inside
    # join() can leave the thread marked as stopped while it still runs (CPython's recovery
    # for an interrupted lock acquire releases the running thread's own lock).
    started = time.perf_counter()
    worker = threading.Thread(target=run, name="tttlab-proof", daemon=True)
    timed_out = False
    try:
        if inline:  # no thread: no time limit nor progress, a Ctrl-C heard once it returns
            run()
        else:
            worker.start()  # inside: a Ctrl-C may land while start() waits for the thread
        told = started
        while not finished.wait(0.05):
            now = time.perf_counter()
            if time_limit is not None and now - started > time_limit:
                timed_out = True
                nodes[STOP] = 1
            if progress is not None and now - told >= progress_every:
                told = now
                plies = [int(n) for n in nodes[SETTLED : SETTLED + 2 * TRACKED]]
                settled, counts = tuple(plies[:TRACKED]), tuple(plies[TRACKED:])
                progress(SearchProgress(int(nodes[VISITED]), now - started, settled, counts))
    except BaseException:  # Ctrl-C: stop the search, forget its half-work, raise it again
        nodes[STOP] = 1
        if worker.ident is not None:
            finished.wait()
        table.entries = int(nodes[STORED])
        if forget:
            table.clear()
        raise
    seconds = time.perf_counter() - started
    table.entries = int(nodes[STORED])
    if nodes[VISITED] > nodes[BUDGET] or not result:
        if timed_out:
            if forget:
                table.clear()
            stopped = SearchStopped(
                f"{g.name} was not proved within the time limit of {time_limit:g} s "
                f"({int(nodes[VISITED]):,} nodes); the search was stopped"
            )
            stopped.nodes = int(nodes[VISITED])
            raise stopped
        if table.path is None:
            table.clear()
        raise SearchTooLarge(
            f"{g.name} was not proved within {node_budget:,} nodes ({seconds:.0f} s); "
            "the search was stopped"
        )
    value = result[0]
    x_value = value if mover == 1 else -value
    side_bound = 0  # from the mover's side: -1 failed low (an upper bound), +1 high
    if value <= alpha and alpha > -1:
        side_bound = -1
    elif value >= beta and beta < 1:
        side_bound = 1
    best = int(nodes[BEST])
    zone = int(zones[0, HOLDS])
    return Proof(
        int(x_value),
        int(nodes[VISITED]),
        table.entries,
        table.slots,
        seconds,
        best if best >= 0 and side_bound >= 0 else None,
        side_bound if mover == 1 else -side_bound,
        None if zone == -1 or value < 0 else zone & t.full,
    )
