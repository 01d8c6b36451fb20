"""The proof search's transposition table (:mod:`tttlab.solvers.bitboard`): one row of
40 bytes per slot, which several proofs on one board may share, in one process or, through a
file (:meth:`ProofTable.shared`), in several processes of one machine while they run."""

from __future__ import annotations

import contextlib
import mmap
import os
import uuid
from pathlib import Path

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
        _check_bits(bits)
        # One row of 40 bytes per slot, so that a probe reads one place in memory: X's
        # canonical bitboard sealed with the other words (slots.seal), O's, then value + 1 |
        # flag << 2 | (1 + the best move's place) << 4 | empty cells << 16, then the zones of
        # the entry's claims (cannot win, holds) on the canonical image (tttlab.solvers.slots).
        # All zeros, so the memory is taken as the search first writes it, not up front; a
        # slot whose third word is 0 is empty.
        # The rows live in an anonymous mapping that asks for huge pages: a big search writes
        # its entries all over the table, and with 4 KiB pages every first write is a page
        # fault (5x5 k=4 in a 3 GiB table: 3.5 s of faults for a 0.15 s search).
        memory = mmap.mmap(-1, (1 << bits) * self.SLOT_BYTES + 8)  # + the one word of marks
        if hasattr(mmap, "MADV_HUGEPAGE"):
            with contextlib.suppress(OSError):
                memory.madvise(mmap.MADV_HUGEPAGE)
        self._open(memory, 0, 1 << bits, 1, None, None)

    def _open(
        self,
        memory: mmap.mmap,
        offset: int,
        slots: int,
        marks: int,
        geometry: Geometry | None,
        path: Path | None,
    ) -> None:
        self._memory = memory
        self.rows = np.frombuffer(memory, np.int64, slots * 5, offset).reshape(-1, 5)
        # the positions that searches in other processes are inside (kernel: slots.mark); one
        # word, unused, where the table is not shared
        self.marks = np.frombuffer(memory, np.int64, marks, offset + slots * self.SLOT_BYTES)
        self.entries = 0  # this process's count: another's new entries are not seen
        self.geometry = geometry  # the board, from its first proof or the shared file
        self.path = path  # the shared file, or None

    #: The first bytes of a shared table's file: this, then the board's name.
    SHARED_MAGIC = b"tttlab-proof-table-1 "
    SHARED_HEADER = 64
    #: The marks of a shared table (a few a search: one per position on its path).
    SHARED_MARKS = 1 << 16

    @classmethod
    def shared(cls, path: str | os.PathLike[str], bits: int, geometry: Geometry) -> ProofTable:
        """The table of ``geometry``'s proofs in the file at ``path``, made (zeros, this user's
        only) if there is none: every process of the machine that opens the same file shares
        the table while the searches run, each seeing the entries that the others have
        written (searches in several processes then share their subtrees as one process's
        do). Put the file on a memory file system (``/dev/shm``), where its room is taken
        when it is opened. An entry being written while another process reads it fails its
        seal and is not used (:mod:`tttlab.solvers.slots`). ``entries`` counts this process's
        new entries only. The file must stay whole while it is open: a file cut short under
        a mapping is a bus error. Raises :class:`ProofTableBoardError` if the file holds
        another board's proofs, and :class:`~tttlab.errors.TttlabError` if it is not a table
        of ``2**bits`` slots, is another user's or others may write it, or cannot be opened
        or given its room."""
        _check_bits(bits)
        file = Path(path)
        size = cls.SHARED_HEADER + (1 << bits) * cls.SLOT_BYTES + cls.SHARED_MARKS * 8
        try:
            if not file.exists():
                cls._create(file, size, geometry)
            descriptor = os.open(file, os.O_RDWR)
            try:
                found = os.fstat(descriptor)
                if found.st_uid != os.getuid() or found.st_mode & 0o022:
                    raise TttlabError(
                        f"{file} is not a proof table to trust: another user's, or others "
                        "may write it"
                    )
                if found.st_size != size:
                    raise TttlabError(
                        f"{file} is not a proof table of 2**{bits} slots ({found.st_size:,} "
                        f"bytes, not {size:,})"
                    )
                if found.st_blocks * 512 < size:  # made sparse elsewhere: its room now
                    _take_room(descriptor, size)
                memory = mmap.mmap(descriptor, size)
            finally:
                os.close(descriptor)
        except OSError as error:  # no such folder, a folder, no permission, no room
            raise TttlabError(f"cannot open the proof table {file}: {error.strerror}") from None
        header = memory[: cls.SHARED_HEADER]
        if not header.startswith(cls.SHARED_MAGIC):
            memory.close()
            raise TttlabError(f"{file} is not a proof table")
        board = header[len(cls.SHARED_MAGIC) :].rstrip(b"\0").decode("ascii", "replace")
        if board != geometry.name:
            memory.close()
            raise ProofTableBoardError(
                f"the proof table {file} holds {board}'s proofs, not {geometry.name}'s"
            )
        table = cls.__new__(cls)
        table._open(memory, cls.SHARED_HEADER, 1 << bits, cls.SHARED_MARKS, geometry, file)
        return table

    @classmethod
    def _create(cls, file: Path, size: int, geometry: Geometry) -> None:
        """Make the file whole aside, its room taken (a memory file system too small says so
        here, not with a bus error half-way through a search), then link it in: a process
        sees all of it or none. Another process that made it first wins."""
        header = (cls.SHARED_MAGIC + geometry.name.encode()).ljust(cls.SHARED_HEADER, b"\0")
        aside = file.with_name(f".{file.name[:100]}.{uuid.uuid4().hex}")
        try:
            descriptor = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with open(descriptor, "wb") as out:
                out.write(header)
                out.truncate(size)
                _take_room(out.fileno(), size)
            with contextlib.suppress(FileExistsError):
                os.link(aside, file)
        finally:
            with contextlib.suppress(FileNotFoundError):
                aside.unlink()

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
        """Forget everything: every process's entries, if shared (whose file stays
        ``geometry``'s)."""
        self.rows[:, 2] = 0
        self.marks[:] = 0  # (a killed process's, left behind)
        self.entries = 0
        if self.path is None:
            self.geometry = None  # empty: any board's again


def _check_bits(bits: int) -> None:
    if not isinstance(bits, int) or isinstance(bits, bool) or not 1 <= bits <= 40:
        # at least a bucket (two slots); at most 2**40 slots (44 TB)
        raise ValueError(f"a proof table has 2**bits slots with 1 <= bits <= 40, not {bits!r}")


def _take_room(descriptor: int, size: int) -> None:
    """Have the file system set aside the file's ``size`` bytes now (where it can)."""
    if hasattr(os, "posix_fallocate"):
        os.posix_fallocate(descriptor, 0, size)
