"""Exact game values: the backward-induction table and alpha-beta search."""

from tttlab.solve.alphabeta import AlphaBeta, SearchResult
from tttlab.solve.table import Solution, solve

__all__ = ["AlphaBeta", "SearchResult", "Solution", "solve"]
