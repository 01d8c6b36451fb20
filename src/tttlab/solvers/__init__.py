"""Exact game values: the backward-induction table and alpha-beta search."""

from tttlab.solvers.alphabeta import AlphaBeta, SearchResult
from tttlab.solvers.table import Solution, solve_table

__all__ = ["AlphaBeta", "SearchResult", "Solution", "solve_table"]
