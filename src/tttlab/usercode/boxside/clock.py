"""The time a limit counts: the clock, less the time the processes waited for a CPU
(standard library only).

On a busy machine a process that wants to run waits in the kernel's run queue, and that
wait is the machine's, not the student's. Linux says how long each task has waited there
(``/proc/PID/schedstat``: nanoseconds on a CPU, nanoseconds waiting for one, time slices),
so a limit counts everything else: the code running, or sleeping, or blocked of its own
accord. A loop is stopped after its limit in CPU time, a call that sleeps after its limit
on the clock, whatever else the machine runs (as IOI's ``isolate`` counts CPU time, not the
clock). Where the kernel does not say (another system, or no scheduler statistics),
:meth:`OwnClock.own` is None and the caller of it decides.
"""

from __future__ import annotations

import contextlib
import os
import time

__all__ = ["OwnClock", "Waits"]


class Waits:
    """The run-queue waits of some processes (``"self"`` or process ids), read again at
    each reading from files kept open (opening one costs as much as a quick call)."""

    def __init__(self, *pids: int | str) -> None:
        self.fds: list[int] = []
        for pid in pids:
            try:
                self.fds.append(os.open(f"/proc/{pid}/schedstat", os.O_RDONLY))
            except OSError:
                self.close()
                return

    def seconds(self) -> float | None:
        """Their waits for a CPU so far, in seconds (None where the kernel does not say, or
        a process has ended)."""
        if not self.fds:
            return None
        total = 0
        try:
            for fd in self.fds:
                total += int(os.pread(fd, 128, 0).split()[1])
        except (OSError, IndexError, ValueError):
            return None
        return total / 1e9

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds = []


class OwnClock:
    """Seconds since it was made, less the time ``waits`` waited for a CPU meanwhile."""

    def __init__(self, waits: Waits) -> None:
        self.waits = waits
        self.start = time.monotonic()
        self.waited = waits.seconds()

    def own(self) -> float | None:
        """The time so far that was the processes' own (None where the kernel does not say)."""
        waits = self.waits.seconds()
        if waits is None or self.waited is None:
            return None
        return max(0.0, time.monotonic() - self.start - (waits - self.waited))
