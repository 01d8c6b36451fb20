"""Proof certificates: the strategies that ``ttt verify`` (:mod:`tttlab.verifier`) checks
against the rules alone.

For a first-player win, X's strategy: a move at every position where X is to move that the
strategy reaches against every legal reply of O. For a draw, two strategies that *hold*: O's,
against which X never completes a line, and X's, against which O never does. Each move is
taken from the proof search (its best move, or the first move whose position keeps the
value), with one transposition table shared by every proof of the certificate.

The certificate leaves out what the rules show at a glance, as the verifier reads it: a
position where the winner can complete a line at once, and, for a holding strategy, a
position where every line already holds one of its marks. A holding strategy ends, where it
can, in a pairing (:func:`pairing`) that the verifier checks instead of walking on, and where
one of its moves leads to such a leaf (or to one the weights hold) it plays that move rather
than the search's: its subtree is then one position (7×4 with k = 4 has a certificate so). Of the
other side's replies on dead cells a winning strategy answers the lowest and a holding one
none (:func:`replies`), as the verifier walks them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import numpy as np

from tttlab.game import Geometry, Player, Position
from tttlab.game.geometry import int64_word
from tttlab.solvers.bitboard import (
    DEFAULT_NODE_BUDGET,
    UNLIMITED_NODES,
    Proof,
    ProofTable,
    SearchStopped,
    prove,
)
from tttlab.solvers.pairing import pairing_of
from tttlab.solvers.zones import hold_window, table_key, zone_replies

__all__ = [
    "Certificate",
    "build_certificate",
    "canonical",
    "dead",
    "pairing",
    "replies",
    "write_certificate",
]


#: A strategy: its move at each position (keyed by its string), a pairing (a list of pairs),
#: or at a position where the other side moves, ``{"zones": [[cell, ...], ...]}``.
Strategy = dict[str, int | list[list[int]] | dict[str, list[list[int]]]]


@dataclass(frozen=True)
class Certificate:
    """A proof of a position's value, as the strategies that show it."""

    geometry: Geometry
    position: Position
    value: int  # from X's side
    strategies: dict[str, Strategy]
    seconds: float
    root: Proof  # the proof of the position's value, the first of the certificate's
    symmetric: bool = False  # keyed by positions up to the board's symmetries (version 2)
    zones: bool = False  # and holding strategies with zones (version 3, symmetric too)

    @property
    def claim(self) -> str:
        return {1: "X wins", 0: "draw", -1: "O wins"}[self.value]

    def to_dict(self) -> dict[str, Any]:
        g = self.geometry
        return {
            "format": "tttlab-certificate",
            "version": 3 if self.zones else 2 if self.symmetric else 1,
            "board": g.name,
            "rows": g.rows,
            "cols": g.cols,
            "k": g.k,
            "position": self.position.to_string("/"),
            "claim": self.claim,
            "strategies": self.strategies,
        }

    @property
    def moves(self) -> int:
        """Positions with a move, over every strategy (the certificate's size)."""
        return sum(len(s) for s in self.strategies.values())


@lru_cache(maxsize=64)
def _masks(geometry: Geometry) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The lines as bitmasks, and the masks of the lines through each cell."""
    lines = tuple(_unsigned(int(m)) for m in geometry.line_masks)
    return lines, tuple(tuple(m for m in lines if m >> c & 1) for c in range(geometry.cells))


def _marks(p: Position, mark: int) -> tuple[int, int]:
    """The bitmasks of ``mark``'s cells and of the other side's."""
    x_bits, o_bits = p.bitboards
    return (x_bits, o_bits) if mark == 1 else (o_bits, x_bits)


def _completes(p: Position, mark: int) -> bool:
    """Whether ``mark`` can complete a line with one more mark."""
    mine, theirs = _marks(p, mark)
    k = p.geometry.k
    return any(
        not line & theirs and (line & mine).bit_count() == k - 1 for line in _masks(p.geometry)[0]
    )


def _held(p: Position, holder: int) -> bool:
    """Erdős–Selfridge: the lines free of ``holder``'s marks, each weighing 2^-(its empty
    cells), weigh under 1 with the holder to move (1/2 with the other side to move)."""
    mine, theirs = _marks(p, holder)
    most = 1 << (p.geometry.k - (int(p.to_move) != holder))
    weight = 0
    for line in _masks(p.geometry)[0]:
        if not line & mine:
            weight += 1 << (line & theirs).bit_count()
            if weight >= most:
                return False
    return True


def canonical(p: Position) -> Position:
    """The image of ``p`` under the board's symmetries whose row-major string comes first
    (``.`` < ``O`` < ``X``): the position a version-2 certificate keys ``p``'s class by."""
    text = p.to_string()
    first = min(p.geometry.symmetries, key=lambda perm: "".join(text[j] for j in perm))
    return p.transform(first)


def _strategy(
    root: Position,
    side: Player,
    goal: str,
    value_of: Callable[..., Proof],
    symmetric: bool = False,
    zones: bool = False,
) -> Strategy:
    """``side``'s moves that reach ``goal`` ("win" or "hold") from ``root``; with
    ``symmetric``, at the canonical position of each class only (:func:`canonical`); with
    ``zones`` (holding, symmetric), the zones of :mod:`tttlab.solvers.zones` too."""
    mark, sign = int(side), side.sign
    moves: Strategy = {}
    seen: set[tuple[tuple[int, ...], Player]] = set()
    stack = [root]
    zones = zones and goal == "hold"
    if zones:  # ask only whether the holder holds: a cheaper search, which gives its zone
        value_of = partial(value_of, window=hold_window(side))
    while stack:
        p = canonical(stack.pop()) if symmetric else stack.pop()
        if (p.cells, p.to_move) in seen:
            continue
        seen.add((p.cells, p.to_move))
        if p.is_terminal:
            if p.winner not in (None, side):  # a zone's proof that does not hold
                raise ValueError(f"{p}: {p.winner} completes a line against the strategy")
            continue
        if goal == "hold" and _held(p, mark):
            continue
        if goal == "hold":
            pairs = pairing(p, mark)
            if pairs is not None:
                moves[p.to_string("/")] = pairs
                continue
        if p.to_move is side:
            if _completes(p, mark):
                continue
            move = _to_leaf(p, mark) if goal == "hold" else None
            if move is None:
                move = _keeping(p, sign, goal, value_of)
            moves[p.to_string("/")] = move
            stack.append(p.apply(move))
        elif zones:
            live = replies(p, hold=True)
            cells, walked = zone_replies(
                p, live, _masks(p.geometry)[1], lambda q: value_of(q).holds_zone
            )
            if cells:
                moves[p.to_string("/")] = {"zones": cells}
            stack.extend(walked)
        else:
            stack.extend(p.apply(m) for m in replies(p, hold=goal == "hold"))
    return moves


def dead(p: Position, cell: int) -> bool:
    """Whether no line through ``cell`` is still open to either side (every line through
    it holds an X and an O)."""
    x_bits, o_bits = p.bitboards
    return all(line & x_bits and line & o_bits for line in _masks(p.geometry)[1][cell])


def replies(p: Position, hold: bool) -> list[int]:
    """The replies a strategy answers, as ``ttt verify`` walks them (:mod:`tttlab.verifier`):
    every legal move on a cell that is not dead; for a winning strategy the lowest dead cell
    too (the other dead ones are the same game), for a holding one none (a mark there is a
    pass, answered by any mark)."""
    moves = list(p.legal_moves)
    live = [m for m in moves if not dead(p, m)]
    if len(live) < len(moves) and not hold:
        live.append(next(m for m in moves if m not in live))
    return live


def pairing(p: Position, mark: int, effort: int = 2_000) -> list[list[int]] | None:
    """Disjoint pairs of empty cells such that every line without a ``mark`` contains a
    whole pair (so ``mark``'s side holds by answering each move in a pair with its partner),
    found by the proof search's compiled backtracking over the lines with the fewest free
    cells first (:func:`~tttlab.solvers.pairing.pairing_of`); None when there is none or
    ``effort`` steps did not find one."""
    mine, theirs = _marks(p, mark)
    lines = [int64_word(m) for m in _masks(p.geometry)[0] if not m & mine]
    free = int64_word(((1 << p.geometry.cells) - 1) & ~(mine | theirs))
    pairs = pairing_of(np.array(lines, dtype=np.int64), free, min(effort, 1 << 62))
    if pairs is None:
        return None
    return [[c for c in range(p.geometry.cells) if pair >> c & 1] for pair in map(_unsigned, pairs)]


def _unsigned(word: int) -> int:
    """An int64 word's bits as a non-negative int."""
    return word & ((1 << 64) - 1)


def _to_leaf(p: Position, holder: int) -> int | None:
    """A move of the holder after which the position is a leaf of its holding strategy (the
    weights hold, or a pairing does): the lowest such move, one the weights prove first; None
    when there is none. Such a move keeps the hold by itself, whatever the search prefers."""
    after = [(m, p.apply(m)) for m in p.legal_moves]
    for move, q in after:
        if _held(q, holder):
            return move
    for move, q in after:
        if pairing(q, holder) is not None:
            return move
    return None


def _keeping(p: Position, sign: int, goal: str, value_of: Callable[[Position], Proof]) -> int:
    """A move of the side to move (``sign``: +1 for X) that keeps its goal."""
    need = 1 if goal == "win" else 0
    proof = value_of(p)
    if proof.value * sign < need:
        raise ValueError(f"{p}: the search says {proof.value}; the strategy cannot keep {goal}")
    if proof.best_move is not None:
        return proof.best_move
    for move in p.legal_moves:
        if value_of(p.apply(move)).value * sign >= need:
            return move
    raise ValueError(f"{p}: no move keeps the value {proof.value}")  # the search is wrong


def build_certificate(
    position: Position,
    table_bits: int = 22,
    time_limit: float | None = None,
    symmetric: bool = False,
    zones: bool = False,
) -> Certificate:
    """The value of ``position`` with the strategies that prove it, from one table shared by
    every proof (the root's first); with ``symmetric``, one entry per class of positions up
    to the board's symmetries (a version-2 certificate: a square board's is about an eighth
    the size); with ``zones`` too, holding strategies with zones (version 3,
    :mod:`tttlab.solvers.zones`). Raises :class:`~tttlab.solvers.bitboard.SearchStopped`
    past ``time_limit`` seconds."""
    started = time.perf_counter()
    symmetric = symmetric or zones
    tables: dict[int, ProofTable] = {}  # the positions a game reaches (0), and each zone's

    stopped = SearchStopped(
        f"the certificate of {position.geometry.name} was not finished within the "
        f"time limit of {time_limit or 0:g} s"
    )  # raised only where there is a time limit

    def value_of(p: Position, window: tuple[int, int] = (-1, 1)) -> Proof:
        left = None if time_limit is None else time_limit - (time.perf_counter() - started)
        if left is not None and left <= 0:
            raise stopped
        budget = DEFAULT_NODE_BUDGET if time_limit is None else UNLIMITED_NODES
        key = table_key(p)
        if key not in tables:
            tables[key] = ProofTable(table_bits if key == 0 else min(table_bits, 20))
        try:
            return prove(
                p,
                table=tables[key],
                node_budget=budget,
                time_limit=left,
                window=window,
                inline=p is not position,  # the rest are small, their table mostly filled
            )
        except SearchStopped:
            if p is position:  # the value itself was not proved: the search says so
                raise
            raise stopped from None  # a later proof ran into what was left of the limit

    root = value_of(position)
    value = root.value
    if value != 0:
        winner = Player.X if value == 1 else Player.O
        strategies = {winner.name: _strategy(position, winner, "win", value_of, symmetric)}
    else:
        strategies = {
            side.name: _strategy(position, side, "hold", value_of, symmetric, zones)
            for side in (Player.X, Player.O)
        }
    seconds = time.perf_counter() - started
    return Certificate(
        position.geometry, position, value, strategies, seconds, root, symmetric, zones
    )


def write_certificate(certificate: Certificate, path: Path) -> int:
    """Write the certificate as JSON (one line per position); its size in bytes."""
    data = certificate.to_dict()
    strategies = data.pop("strategies")
    head = json.dumps(data)[:-1]
    parts = [head + ', "strategies": {']
    for i, (side, moves) in enumerate(strategies.items()):
        rows = ",\n".join(f"  {json.dumps(key)}: {json.dumps(move)}" for key, move in moves.items())
        parts.append(("," if i else "") + f"\n {json.dumps(side)}: {{\n{rows}\n }}")
    text = "".join(parts) + "\n}}\n"
    path.write_text(text)
    return len(text.encode())
