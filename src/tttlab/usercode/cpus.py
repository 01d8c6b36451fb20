"""The CPU each box runs on, shared out among every ``ttt check`` of the machine's user.

A box's caller and worker take turns on one CPU (see the box's caller): the CPU is chosen
here, as the box starts, and held until it ends. Each CPU has numbered places, lock files in
a folder of the user's own (:func:`folder`): a box takes the first free place of the lowest
number on any CPU it may run on, so that the boxes of two graders (two ``ttt check``
processes, a suite's two workers, a course server's) go to different CPUs before any CPU
gets a second one. A place is an ``flock``: it is let go when its descriptor closes, however
the grader ends. Where no such folder can be had, the boxes of this process alone are shared
out (counted here).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = ["folder", "held_cpu"]

#: Places a CPU has: past them, a box takes the CPU of this process's fewest boxes.
PLACES = 64

#: The boxes running on each CPU of this process (the fallback, and the tie-break).
_ON_CPU: dict[int, int] = {}
_COUNT = threading.Lock()


def folder() -> Path | None:
    """The user's folder of places (made on first use, the user's alone), or None where the
    temporary folder has none to give (not writable, or the name held by something else)."""
    path = Path(tempfile.gettempdir()) / f"tttlab-{os.getuid()}-cpus"
    with contextlib.suppress(FileExistsError, OSError):
        path.mkdir(mode=0o700)
    try:
        info = path.lstat()
    except OSError:
        return None
    mine = info.st_uid == os.getuid() and stat.S_ISDIR(info.st_mode)
    return path if mine and stat.S_IMODE(info.st_mode) & 0o077 == 0 else None


def _take(place: Path) -> int | None:
    """A descriptor holding ``place`` (None: another box holds it, or it cannot be had)."""
    try:
        fd = os.open(place, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


@contextlib.contextmanager
def held_cpu() -> Iterator[int | None]:
    """A CPU for one box, held until the ``with`` ends (None: no affinity to be had)."""
    if not hasattr(os, "sched_getaffinity"):
        yield None
        return
    cpus = sorted(os.sched_getaffinity(0))
    fd = None
    with _COUNT:
        order = sorted(cpus, key=lambda c: _ON_CPU.get(c, 0))
        cpu = order[0]
        places = folder()
        for number in range(PLACES if places is not None else 0):
            for candidate in order:
                assert places is not None
                fd = _take(places / f"cpu{candidate}.{number}")
                if fd is not None:
                    cpu = candidate
                    break
            if fd is not None:
                break
        _ON_CPU[cpu] = _ON_CPU.get(cpu, 0) + 1
    try:
        yield cpu
    finally:
        with _COUNT:
            _ON_CPU[cpu] -= 1
        if fd is not None:
            os.close(fd)
