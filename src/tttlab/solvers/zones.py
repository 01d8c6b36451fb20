"""Zones in holding strategies (version-3 certificates): one proof answers many replies.

The proof search leaves out a move of the attacker (the side that is not holding) outside
the *zone* of a move it refuted (:mod:`tttlab.solvers.bitboard`): the cells the refutation
reads, which stays true with the attacker's marks on any empty cell outside them. A
certificate says the same in a form that ``ttt verify`` checks from the rules alone: at a
position where the attacker is to move, a zone ``Z`` stands for the position :class:`Marks`
where the attacker has a mark on *every* empty cell outside ``Z`` and the holder is to move;
the certificate holds that position too, and the verifier walks it. The attacker's move on
any one cell outside ``Z`` leads to a position with fewer of the attacker's marks and the
same of the holder's, the holder to move, so the same strategy holds there (fewer marks
never help their owner). The replies inside every zone are walked one by one as before.

A position of a zone's proof is one that no game reaches (the attacker has more marks than
turns), so its side to move is given, not counted: a certificate keys it with the side to
move after a space wherever the counts do not give it (``"XX.../... O"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tttlab.game import Player, Position
from tttlab.game.position import EMPTY

__all__ = ["Marks", "hold_window", "table_key", "zone_replies"]


@dataclass(frozen=True, slots=True)
class Marks(Position):
    """Marks on a board with the side to move given (:attr:`mover`), whether or not a game
    reaches them: the positions of a zone's holding proof."""

    mover: Player = Player.X

    @property
    def to_move(self) -> Player:
        return self.mover

    def apply(self, move: int) -> Marks:
        cells = list(self.cells)
        if cells[move] != EMPTY or self.is_terminal:
            raise ValueError(f"{self}: {move} is not a legal move")
        cells[move] = int(self.mover)
        return Marks(self.geometry, tuple(cells), self.mover.other)

    def transform(self, perm: tuple[int, ...]) -> Marks:
        return Marks(self.geometry, tuple(self.cells[j] for j in perm), self.mover)

    def to_string(self, separator: str = "") -> str:
        """The position's string, with its side to move after a space where the counts of
        marks do not give it (X as many as O: X to move; one more: O to move)."""
        text = Position.to_string(self, separator)
        ahead = self.cells.count(1) - self.cells.count(2)
        counted = {0: Player.X, 1: Player.O}.get(ahead)
        return text if counted is self.mover else f"{text} {self.mover.name}"


def table_key(p: Position) -> int:
    """Which proof table ``p`` may share: the search's table is keyed by the marks alone, so
    positions whose side to move the counts give (0) stay apart from a zone's, and a zone's
    from each other's by how many marks ahead of its turns the attacker is."""
    ahead = p.cells.count(1) - p.cells.count(2)
    return ahead - (p.to_move is Player.O)


def hold_window(holder: Player) -> tuple[int, int]:
    """The proof search's window (from X's side) that asks only whether ``holder`` holds."""
    return (-1, 0) if holder is Player.X else (0, 1)


def _order(p: Position, live: list[int], lines: tuple[tuple[int, ...], ...]) -> list[int]:
    """The moves as the search orders them: the live lines through a cell, each 4**marks."""
    x_bits, o_bits = p.bitboards

    def score(cell: int) -> int:
        total = 0
        for line in lines[cell]:
            x, o = (line & x_bits).bit_count(), (line & o_bits).bit_count()
            total += (4**x if not o else 0) + (4**o if not x else 0)
        return total

    return sorted(live, key=lambda c: (-score(c), c))


def zone_replies(
    p: Position,
    live: list[int],
    lines: tuple[tuple[int, ...], ...],
    proof_of: Callable[[Position], int | None],
) -> tuple[list[list[int]], list[Position]]:
    """At ``p`` (the attacker to move; ``live``: the replies a walk answers; ``lines``: the
    lines through each cell, as bitmasks), the zones of a version-3 entry, and the positions
    the walk goes on to: each zone's :class:`Marks`, then the replies inside every zone.
    ``proof_of(q)`` is the zone of the holder's proof at ``q`` (None: every cell)."""
    holder = p.to_move.other
    empty = sum(1 << c for c, mark in enumerate(p.cells) if mark == EMPTY)
    zones: list[int] = []
    for move in _order(p, live, lines):
        if any(not zone >> move & 1 for zone in zones):
            continue  # outside a zone already: answered by its proof
        zone = proof_of(p.apply(move))
        if zone is None:
            continue
        zone &= empty & ~(1 << move)
        if any(not zone >> c & 1 for c in live if c != move):
            zones.append(zone)  # it answers another reply too
    walked: list[Position] = []
    attacker = int(p.to_move)
    for zone in zones:
        cells = [c or (EMPTY if zone >> i & 1 else attacker) for i, c in enumerate(p.cells)]
        walked.append(Marks(p.geometry, tuple(cells), holder))
    walked += [p.apply(m) for m in live if all(zone >> m & 1 for zone in zones)]
    cells_of = [[c for c in range(p.geometry.cells) if zone >> c & 1] for zone in zones]
    return cells_of, walked
