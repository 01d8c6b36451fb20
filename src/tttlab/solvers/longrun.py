"""Proofs that run for hours (8,8,5): the search's state saved as it goes, so that a run that
is stopped or killed continues where it stopped.

The state is the transposition table: every entry is a fact about a position, written only
once its subtree is searched through, so a search that starts again from the root with the
same table walks straight down to where the last one was (each finished subtree is one probe)
and goes on from there. :func:`prove_resumable` stops the search every ``every`` seconds,
writes the table's entries to the checkpoint file (numpy's ``.npz``, no pickle; written
atomically: a kill leaves the last checkpoint whole) and goes on; started again with the same
file, it loads them first. A SIGTERM (a scheduler's stop, ``kill``) saves as a Ctrl-C does;
what a ``kill -9`` loses is the work since the last checkpoint.
"""

from __future__ import annotations

import contextlib
import hashlib
import signal
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from tttlab.atomic import write_atomically
from tttlab.errors import TttlabError
from tttlab.game import Position
from tttlab.solvers.bitboard import (
    UNLIMITED_NODES,
    Proof,
    ProofTable,
    SearchProgress,
    SearchStopped,
    prove,
)

__all__ = ["CheckpointError", "load_checkpoint", "prove_resumable", "save_checkpoint"]

#: The checkpoint file's format, written in it.
CHECKPOINT_FORMAT = "tttlab-proof-checkpoint-2"  # 2: X key sealed (slots.seal)


class CheckpointError(TttlabError):
    """A checkpoint file that cannot be used: another board, another table size, not one."""


def _digest(board: str, position: str, slots: int, used: np.ndarray, rows: np.ndarray) -> str:
    """What the file's entries must hash to: a damaged file is refused, never believed. The
    arrays are hashed in place (a full 2**26-slot table's entries are 3 GB)."""
    digest = hashlib.sha256(f"{CHECKPOINT_FORMAT}|{board}|{position}|{slots}|".encode())
    digest.update(np.ascontiguousarray(used, dtype=np.int64).data)
    digest.update(np.ascontiguousarray(rows, dtype=np.int64).data)
    return digest.hexdigest()


def save_checkpoint(path: Path, position: Position, table: ProofTable, nodes: int) -> int:
    """Write the table's entries (and the nodes searched so far) for ``position``'s proof;
    the number of entries written."""
    used = np.flatnonzero(table.rows[:, 2])
    rows = table.rows[used]
    board, start = position.geometry.name, position.to_string("/")

    def write(handle: BinaryIO) -> None:
        np.savez(
            handle,
            format=np.array(CHECKPOINT_FORMAT),
            board=np.array(board),
            position=np.array(start),
            slots=np.array(table.slots, dtype=np.int64),
            nodes=np.array(nodes, dtype=np.int64),
            used=used.astype(np.int64, copy=False),
            rows=rows,
            digest=np.array(_digest(board, start, table.slots, used, rows)),
        )

    write_atomically(path, write)
    return int(used.size)


#: Each field of a checkpoint: its dtype kind (U: text, i: integers) and number of axes.
_FIELDS = {name: ("U", 0) for name in ("format", "board", "position", "digest")}
_FIELDS |= {"slots": ("i", 0), "nodes": ("i", 0), "used": ("i", 1), "rows": ("i", 2)}


def load_checkpoint(path: Path, position: Position, table: ProofTable) -> int:
    """Fill ``table`` with the entries saved for ``position``'s proof; the nodes searched so
    far. Raises :class:`CheckpointError` for a file of another proof or table size, or one
    that is not whole (every field checked, the entries against their digest)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            fields = {name: data[name] for name in data.files if name in _FIELDS}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise CheckpointError(f"{path} is not a proof checkpoint ({error})"[:200]) from None
    for name, (kind, axes) in _FIELDS.items():
        value = fields.get(name)
        if not isinstance(value, np.ndarray) or value.dtype.kind != kind or value.ndim != axes:
            raise CheckpointError(f"{path} is not a proof checkpoint (its {name!r})")
    if str(fields["format"]) != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path} is not a proof checkpoint")
    board, start = str(fields["board"]), str(fields["position"])
    if (board, start) != (position.geometry.name, position.to_string("/")):
        raise CheckpointError(
            f"{path} holds the proof of {board} from {start}, "
            f"not of {position.geometry.name} from {position.to_string('/')}"
        )
    slots = int(fields["slots"])
    if slots != table.slots:
        raise CheckpointError(
            f"{path} holds a table of {slots:,} slots, not {table.slots:,} "
            "(give the same --memory as the run that wrote it)"
        )
    used, rows = fields["used"].astype(np.int64), fields["rows"].astype(np.int64)
    fits = used.size == 0 or (
        used[0] >= 0 and used[-1] < slots and bool(np.all(used[1:] > used[:-1]))
    )
    if (
        rows.shape != (used.size, table.rows.shape[1])
        or not fits
        or str(fields["digest"]) != _digest(board, start, slots, used, rows)
    ):
        raise CheckpointError(f"{path} is damaged: its entries are not the ones it was saved with")
    table.rows[used] = rows
    table.bind(position.geometry)
    table.entries = int(used.size)
    return int(fields["nodes"])


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """A SIGTERM heard as a Ctrl-C while the block runs (in the main thread only, where
    Python's signal handlers run), so that a run stopped by a scheduler saves its table; an
    ignored SIGTERM, or one whose handler is not Python's, stays as it is."""
    before = signal.getsignal(signal.SIGTERM)
    if threading.current_thread() is not threading.main_thread() or before in (
        signal.SIG_IGN,
        None,
    ):
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _save(checkpoint: Path, position: Position, table: ProofTable, nodes: int) -> None:
    """Save the checkpoint whole: a Ctrl-C or SIGTERM meanwhile is heard once it is written
    (raised then as KeyboardInterrupt), rather than stopping the write and losing the work
    since the last save."""
    held: dict[signal.Signals, Any] = {}
    heard: list[int] = []
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(signum)
            if handler not in (signal.SIG_IGN, None):
                held[signum] = handler
                signal.signal(signum, lambda number, frame: heard.append(number))
    try:
        save_checkpoint(checkpoint, position, table, nodes)
    finally:
        for signum, handler in held.items():
            signal.signal(signum, handler)
    if heard:
        raise KeyboardInterrupt


def prove_resumable(
    position: Position,
    checkpoint: Path,
    table_bits: int,
    every: float = 600.0,
    time_limit: float | None = None,
    progress: Callable[[SearchProgress], None] | None = None,
    progress_every: float = 1.0,
) -> Proof:
    """:func:`~tttlab.solvers.bitboard.prove`, saving its table to ``checkpoint`` every
    ``every`` seconds and when the time limit stops it (then
    :class:`~tttlab.solvers.bitboard.SearchStopped` is raised), and starting from the saved
    table where the file exists; a Ctrl-C or a SIGTERM saves it too (and raises
    KeyboardInterrupt). The proof's nodes count every run's."""
    with _terminate_as_interrupt():
        table = ProofTable(table_bits)
        before = load_checkpoint(checkpoint, position, table) if checkpoint.exists() else 0
        started = time.perf_counter()
        search = partial(
            prove,
            position,
            table=table,
            node_budget=UNLIMITED_NODES,
            progress=progress,
            progress_every=progress_every,
        )
        while True:
            left = None if time_limit is None else time_limit - (time.perf_counter() - started)
            chunk = every if left is None else max(min(every, left), 0.001)
            try:
                proof = search(time_limit=chunk, keep_on_stop=True)
            except SearchStopped as stopped:
                before += stopped.nodes
                _save(checkpoint, position, table, before)
                if left is not None and left <= every:
                    over = SearchStopped(
                        f"{position.geometry.name} was not proved within the time limit of "
                        f"{time_limit:g} s ({before:,} nodes over every run); "
                        "the search was stopped"
                    )
                    over.nodes = before
                    raise over from None
                continue
            except KeyboardInterrupt:  # Ctrl-C, SIGTERM: the table is kept for the next run
                _save(checkpoint, position, table, before)
                raise
            return replace(proof, nodes=before + proof.nodes, seconds=time.perf_counter() - started)
