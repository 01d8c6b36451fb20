"""The proof search's transposition table (:mod:`tttlab.solvers.bitboard`): one row of
40 bytes per slot, which several proofs on one board may share."""

from __future__ import annotations

import contextlib
import mmap

import numpy as np

from tttlab.errors import TttlabError
from tttlab.game import Geometry

__all__ = ["ProofTable", "ProofTableBoardError"]


class ProofTableBoardError(TttlabError):
    """A proof table used for a board other than the one whose proofs it holds."""


class ProofTable:
    """The proof search's transposition table, which several proofs on one board may share
    (one board only: its first proof binds it, and another board raises
    :class:`ProofTableBoardError`, since its entries would be taken for the other's):
    an entry is a fact about a position (its value for the mover, or a bound on it), true
    whatever the root, so a later proof reuses what an earlier one found. Judging many
    positions of one game (sampled evaluation) then costs far less than a table per proof.
    """

    def __init__(self, bits: int) -> None:
        # One row of 40 bytes per slot, so that a probe reads one place in memory: X's and O's
        # canonical bitboards, then value + 1 | flag << 2 | (1 + the best move's place) << 4,
        # then the zones of the entry's claims (cannot win, holds) on the canonical image.
        # All zeros, so the memory is taken as the search first writes it, not up front; a
        # slot whose third word is 0 is empty.
        # The rows live in an anonymous mapping that asks for huge pages: a big search writes
        # its entries all over the table, and with 4 KiB pages every first write is a page
        # fault (5x5 k=4 in a 3 GiB table: 3.5 s of faults for a 0.15 s search).
        self._memory = mmap.mmap(-1, (1 << bits) * self.SLOT_BYTES)
        if hasattr(mmap, "MADV_HUGEPAGE"):
            with contextlib.suppress(OSError):
                self._memory.madvise(mmap.MADV_HUGEPAGE)
        self.rows = np.frombuffer(self._memory, dtype=np.int64).reshape(-1, 5)
        self.entries = 0
        self.geometry: Geometry | None = None  # the board, from its first proof

    def bind(self, geometry: Geometry) -> None:
        """Hold ``geometry``'s proofs only: raise if the table holds another board's."""
        if self.geometry is None:
            self.geometry = geometry
        elif self.geometry != geometry:
            raise ProofTableBoardError(
                f"this proof table holds {self.geometry.name}'s proofs, not {geometry.name}'s"
            )

    #: Bytes per slot.
    SLOT_BYTES = 40

    @property
    def slots(self) -> int:
        return int(self.rows.shape[0])

    def clear(self) -> None:
        """Forget everything (after a search stopped half-way, whose entries are not facts)."""
        self.rows[:, 2] = 0
        self.entries = 0
        self.geometry = None  # empty: any board's again
