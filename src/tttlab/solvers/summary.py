"""The summaries of ``ttt solve --json``: by the full table, or by the compiled proof search.

The JSON is documented in docs/reference/json.md; :func:`tttlab.api.solve` returns it and
the command prints it.
"""

from __future__ import annotations

import time
from typing import Any

from tttlab.game import Geometry, Position, state_space
from tttlab.solvers.bitboard import prove
from tttlab.solvers.table import solve_table

__all__ = ["search_summary", "table_summary"]


def table_bits(geometry: Geometry) -> int:
    """The proof search's transposition table size (log2 slots) for a board's hardest
    position, the empty board."""
    if geometry.cells <= 9:
        return 16
    if geometry.cells <= 12:
        return 20
    return 22 if geometry.cells <= 16 else 25


def search_summary(geometry: Geometry) -> dict[str, Any]:
    """The JSON of ``ttt solve`` by compiled proof search (documented in docs/reference/json.md)."""
    started = time.perf_counter()
    proof = prove(Position.initial(geometry), table_bits=table_bits(geometry))
    return {
        "board": geometry.name,
        "value": proof.value,
        "method": "search",
        "nodes": proof.nodes,
        "table_entries": proof.table_entries,
        "table_slots": proof.table_slots,
        "seconds": round(time.perf_counter() - started, 3),
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
