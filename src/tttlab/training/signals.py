"""Stopping a training run cleanly on Ctrl-C or SIGTERM: between batches, never inside one."""

from __future__ import annotations

import signal
import threading
from typing import Any

__all__ = ["StopOnSignal"]


class StopOnSignal:
    """Turn the first Ctrl-C (SIGINT) or SIGTERM into a request to stop between batches.

    A signal that arrives while numba compiles, or inside a batch, must not tear either
    apart: the loop finishes the batch, then saves. The first signal restores the previous
    handlers, so a second Ctrl-C interrupts at once. Outside the main thread (where Python
    cannot take signals) it does nothing, and ``requested`` stays false.
    """

    def __init__(self, enabled: bool = True) -> None:
        self.requested = False
        self.enabled = enabled and threading.current_thread() is threading.main_thread()
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: object) -> None:
        self.requested = True
        self._restore()

    def _restore(self) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def __enter__(self) -> StopOnSignal:
        if self.enabled:
            for signum in (signal.SIGINT, signal.SIGTERM):
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        self._restore()
