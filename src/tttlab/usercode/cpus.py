"""The CPU each box runs on, shared out among every ``ttt check`` of the machine's user.

A box's caller and worker take turns on one CPU (see the box's caller): the CPU is chosen
here, as the box starts, and held until it ends. Each CPU has numbered places, lock files in
a folder of the user's own (:func:`folder`): a box takes the first free place of the lowest
number on any CPU it may run on, so that the boxes of two graders (two ``ttt check``
processes, a suite's two workers, a course server's) go to different CPUs before any CPU
gets a second one (the places are the user's: a grader run as another user shares out its
own). A place is an ``flock``: it is let go when its descriptor closes, however
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

__all__ = ["folder", "held_cpu"]

#: Places a CPU has: past them, a box takes the CPU of this process's fewest boxes.
PLACES = 64

#: The boxes running on each CPU of this process (the fallback, and the tie-break).
_ON_CPU: dict[int, int] = {}
_COUNT = threading.Lock()


def folder() -> int | None:
    """A descriptor of the user's folder of places (made on first use, the user's alone;
    its mode made so where it is), or None where the temporary folder has none to give (not
    writable, or the name held by something else). Each place is opened through it, never by
    its path again: the folder cannot be swapped for another after it was checked."""
    path = os.path.join(tempfile.gettempdir(), f"tttlab-{os.getuid()}-cpus")
    with contextlib.suppress(OSError):
        os.mkdir(path, 0o700)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if info.st_uid != os.getuid() or not stat.S_ISDIR(info.st_mode):
            raise PermissionError
        if stat.S_IMODE(info.st_mode) & 0o077:
            os.fchmod(fd, 0o700)
    except OSError:
        os.close(fd)
        return None
    return fd


def _take(places: int, name: str) -> int | None:
    """A descriptor holding the place ``name`` of the folder ``places`` (None: another box
    holds it, or it cannot be had)."""
    try:
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(name, flags, 0o600, dir_fd=places)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _first_free(places: int, order: list[int], fallback: int) -> tuple[int | None, int]:
    """The first free place of the lowest number on the CPUs of ``order``: its descriptor
    and its CPU (None and ``fallback`` where every place is held)."""
    for number in range(PLACES):
        for cpu in order:
            fd = _take(places, f"cpu{cpu}.{number}")
            if fd is not None:
                return fd, cpu
    return None, fallback


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
        if places is not None:
            try:
                fd, cpu = _first_free(places, order, cpu)
            finally:
                os.close(places)
        _ON_CPU[cpu] = _ON_CPU.get(cpu, 0) + 1
    try:
        yield cpu
    finally:
        with _COUNT:
            _ON_CPU[cpu] -= 1
        if fd is not None:
            os.close(fd)
