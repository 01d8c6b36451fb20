"""Writing files atomically, and cleaning up after writers that were killed.

Every file tttlab writes for keeps (agent files, the table cache, a sweep's results) goes
through :func:`write_atomically`: the bytes go to ``.NAME.PID.XXXX.tmp`` in the same
folder, are synced, and the temporary is renamed over the target, so a reader sees the old
file or the new one, never half of one. A writer killed mid-save (``kill -9``) leaves its
temporary behind; the next save of the same target removes those whose writer is gone
(:func:`remove_stale_temporaries`), so even a 1 GiB table temporary does not stay for ever.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

__all__ = ["exclusive", "remove_stale_temporaries", "write_atomically"]


def _folder(target: Path) -> Path:
    return target.parent if str(target.parent) else Path(".")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def _glob_escape(name: str) -> str:
    """``name`` with glob's special characters taken literally."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def remove_stale_temporaries(target: Path) -> list[Path]:
    """Delete temporaries of earlier saves of ``target`` whose writer is gone (killed during
    a save: ``kill -9`` leaves ``.NAME.PID.XXXX.tmp``); a save in progress in a live process
    is left alone. Returns what was removed."""
    removed: list[Path] = []
    try:
        candidates = list(_folder(target).glob(f".{_glob_escape(target.name)}.*.tmp"))
    except OSError:
        return removed
    for path in candidates:
        middle = path.name[len(target.name) + 2 : -len(".tmp")]
        pid_text = middle.split(".", 1)[0]
        # Temporaries from before the writer's pid was in the name count as stale too.
        pid = int(pid_text) if pid_text.isdigit() and "." in middle else None
        if pid is not None and pid != os.getpid() and _alive(pid):
            continue
        try:
            path.unlink()
            removed.append(path)
        except OSError:
            pass
    return removed


def write_atomically(target: Path, write: Callable[[BinaryIO], None]) -> Path:
    """Write ``target`` with ``write(handle)`` through a synced temporary file and a rename;
    first removes the stale temporaries of ``target``. An ``OSError`` leaves no temporary."""
    remove_stale_temporaries(target)
    fd, temp = tempfile.mkstemp(
        prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=_folder(target)
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return target


@contextlib.contextmanager
def exclusive(lock: Path) -> Iterator[bool]:
    """Hold an exclusive lock on the file ``lock`` (created if needed) for the ``with``
    block, waiting for other processes that hold it; yields whether it could be taken (a
    folder that cannot be written, or a system without ``fcntl``, runs the block unlocked).
    The lock goes with the process, so a killed holder never blocks the others."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield False
        return
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield False
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield True
    finally:
        os.close(fd)  # closing releases the lock
