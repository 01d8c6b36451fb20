"""``perfect`` on boards too big for a full table: each move from a proof.

Where the full solution cannot be built (more than
:data:`~tttlab.limits.ENUMERATION_CANDIDATES` candidate positions: 4×5 and up, 6×5 with
k = 4 among them), the perfect agent proves the position it is asked about with the compiled
proof search and plays the move the proof's root chose: a winning move in a won position,
one that holds the draw in a drawn one. It never lets a won game go: every move it makes
keeps the value it proved, and a game cannot last forever, so a won game ends won.

Where the proof has no move of its own (the position is lost at once to two threats, no line
can be completed by either side, or both sides hold by pairings, so that every move keeps the
draw) every move has the same value: it blocks one of the threats if there are any, else
plays any move. A table of proofs is shared by all the positions it
is asked about (each entry a fact about one position, whatever the root), so the later moves
of a game cost little. Each answer is kept, so it answers a position the same way every time.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tttlab.agents.base import check_playable, sample, uniform
from tttlab.errors import AgentError
from tttlab.game import Geometry, Position
from tttlab.limits import PERFECT_MOVE_SECONDS
from tttlab.solvers.bitboard import UNLIMITED_NODES, ProofTable, SearchStopped, prove
from tttlab.solvers.summary import table_bits

__all__ = ["ProvedAgent"]


class ProvedAgent:
    """Perfect play by proof search, move by move (every board tttlab plays).

    Args:
        geometry: the board.
        time_limit: seconds the proof of one position may take; past it, the move is refused
            in one line (:class:`~tttlab.errors.AgentError`).
        memory_mb: the proof table's size (``ttt solve --memory``'s default when None).

    Examples:
        >>> from tttlab.game import Geometry, Position
        >>> agent = ProvedAgent(Geometry.parse("3x3k3"))
        >>> agent.move_probabilities(Position.from_string("XX./OO./..."))
        {2: 1.0}
    """

    name = "perfect"
    deterministic = True  # each answer is kept: a position is answered the same way each time

    def __init__(
        self,
        geometry: Geometry,
        time_limit: float = PERFECT_MOVE_SECONDS,
        memory_mb: int | None = None,
    ) -> None:
        self.geometry = geometry
        self.time_limit = time_limit
        self._bits = table_bits(geometry, memory_mb)
        self._table: ProofTable | None = None
        self._moves: dict[tuple[int, int], tuple[int, ...]] = {}

    def _proof_value(self, position: Position) -> tuple[int, int | None]:
        """(the value for X, the proof's move) of an open position."""
        if self._table is None:
            self._table = ProofTable(self._bits)  # taken as the search writes it
        try:
            proof = prove(
                position, table=self._table, node_budget=UNLIMITED_NODES, time_limit=self.time_limit
            )
        except SearchStopped:
            raise AgentError(
                f"perfect could not prove this {self.geometry.name} position within its time "
                f"limit of {self.time_limit:g} s"
            ) from None
        return proof.value, proof.best_move

    def move_probabilities(self, position: Position) -> Mapping[int, float]:
        check_playable(self.geometry, position)
        key = position.bitboards
        moves = self._moves.get(key)
        if moves is None:
            _, best = self._proof_value(position)
            moves = (best,) if best is not None else _threats(position) or position.legal_moves
            self._moves[key] = moves
        return uniform(moves)

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        return sample(self.move_probabilities(position), rng)

    def move_values(self, position: Position) -> Mapping[int, float] | None:
        """+1 / 0 / −1 for the mover: the proved value after each legal move (one proof per
        move: on 6×5 with k = 4, about half a minute from the empty board)."""
        check_playable(self.geometry, position)
        sign = position.to_move.sign
        values: dict[int, float] = {}
        for move in position.legal_moves:
            child = position.apply(move)
            value = child.utility if child.is_terminal else self._proof_value(child)[0]
            values[move] = float(sign * value)
        return values


def _threats(position: Position) -> tuple[int, ...]:
    """The cells where the side not to move would complete a line next (to block one)."""
    x_bits, o_bits = position.bitboards
    mine, theirs = (x_bits, o_bits) if position.to_move.sign == 1 else (o_bits, x_bits)
    k = position.geometry.k
    cells = 0
    for line in map(int, position.geometry.line_masks):
        if line & mine == 0 and (line & theirs).bit_count() == k - 1:
            cells |= line & ~theirs
    return tuple(c for c in range(position.geometry.cells) if cells >> c & 1)
