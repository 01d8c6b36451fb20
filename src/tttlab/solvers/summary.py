"""The summaries of ``ttt solve --json``: by the full table, or by the compiled proof search.

The JSON is documented in docs/reference/json.md; :func:`tttlab.api.solve` returns it and
the command prints it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tttlab.errors import TttlabError
from tttlab.game import Geometry, Position, state_space
from tttlab.solvers.bitboard import (
    DEFAULT_NODE_BUDGET,
    UNLIMITED_NODES,
    Proof,
    ProofTable,
    SearchProgress,
    prove,
)
from tttlab.solvers.table import solve_table

__all__ = ["proof_summary", "search_summary", "table_summary"]


#: ``ttt solve``'s default memory for the proof search's table, in MiB: the most that the
#: biggest boards (past 7×7) take by default.
DEFAULT_MEMORY_MB = 4096


def table_bits(geometry: Geometry, memory_mb: int | None = None) -> int:
    """The proof search's transposition table size (log2 slots) for a board's hardest
    position, the empty board: by the board's size, and at most what ``memory_mb`` MiB
    holds (:data:`DEFAULT_MEMORY_MB` when not given). Up to 7×7 a table of 2**23 slots
    holds every published proof's entries (7,7,5: about 0.9 million); a bigger table only
    costs the time to map its memory (7,7,5 in 1.8 s with 2**23 slots, 2.6 s with 2**25)."""
    if geometry.cells <= 9:
        bits = 16
    elif geometry.cells <= 12:
        bits = 20
    elif geometry.cells <= 16:
        bits = 22
    else:
        bits = 23 if geometry.cells <= 49 else 30
    most = DEFAULT_MEMORY_MB if memory_mb is None else memory_mb
    fits = ((most << 20) // ProofTable.SLOT_BYTES).bit_length() - 1
    if fits < 10:
        raise TttlabError(f"--memory {memory_mb} MiB is too little for the proof search's table")
    return min(bits, fits)


def search_summary(
    geometry: Geometry,
    time_limit: float | None = None,
    memory_mb: int | None = None,
    progress: Callable[[SearchProgress], None] | None = None,
) -> dict[str, Any]:
    """The JSON of ``ttt solve`` by compiled proof search (documented in docs/reference/json.md),
    within ``time_limit`` seconds and a table of at most ``memory_mb`` MiB."""
    started = time.perf_counter()
    proof = prove(
        Position.initial(geometry),
        table_bits=table_bits(geometry, memory_mb),
        node_budget=DEFAULT_NODE_BUDGET if time_limit is None else UNLIMITED_NODES,
        time_limit=time_limit,
        progress=progress,
    )
    return proof_summary(geometry, proof, time.perf_counter() - started)


def proof_summary(geometry: Geometry, proof: Proof, seconds: float) -> dict[str, Any]:
    """The JSON of ``ttt solve`` for a proof of the empty board's value."""
    return {
        "board": geometry.name,
        "value": proof.value,
        "method": "search",
        "best_move": proof.best_move,
        "nodes": proof.nodes,
        "table_entries": proof.table_entries,
        "table_slots": proof.table_slots,
        "seconds": round(seconds, 3),
    }


def table_summary(geometry: Geometry) -> dict[str, Any]:
    """The JSON document of ``ttt solve`` (documented in docs/reference/json.md).

    Lean on 4×4: the game tree is counted over symmetry classes, and the solution's
    per-move tables are read for the empty board only.
    """
    started = time.perf_counter()
    space = state_space(geometry)
    tree = space.game_tree()
    counts = space.counts()
    solution = solve_table(geometry)
    return {
        "board": geometry.name,
        "value": solution.value_at(0),
        "method": "table",
        "depth": solution.depth_at(0),
        "positions": space.size,
        "terminal": counts["terminal"],
        "terminal_split": {key: counts[key] for key in ("x_wins", "o_wins", "draws")},
        "symmetric_positions": counts["classes"],
        "symmetric_nonterminal": counts["open_classes"],
        "game_tree": tree,
        "optimal_first_moves": list(solution.row_moves(0, best=False)),
        "best_first_moves": list(solution.row_moves(0, best=True)),
        "seconds": round(time.perf_counter() - started, 3),
    }
