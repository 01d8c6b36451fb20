"""A box's two pipes as the grader reads them (:mod:`tttlab.usercode.sandbox`): the results
channel up to what the plan can need, stderr's head and tail, each read as it fills, so that
whatever the box writes, and however much, the grader's memory stays bounded.
"""

from __future__ import annotations

import os
import selectors
from typing import Any

from tttlab.limits import BOX_STDERR_BYTES

__all__ = ["Pipes"]


class Pipes:
    """Both pipes of a child, read as they fill, each within its bound."""

    def __init__(self, results: int, stderr: Any, channel_bytes: int) -> None:
        self.selector = selectors.DefaultSelector()
        for pipe in (results, stderr):
            os.set_blocking(pipe if isinstance(pipe, int) else pipe.fileno(), False)
            self.selector.register(pipe, selectors.EVENT_READ)
        self.results = results
        self.channel = bytearray()
        self.channel_limit = channel_bytes
        self.flooded = False
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    @property
    def open(self) -> bool:
        return bool(self.selector.get_map())

    def read(self, timeout: float) -> None:
        for key, _ in self.selector.select(timeout):
            self._take(key.fileobj, key.fd)

    def _take(self, pipe: Any, fd: int) -> bool:
        """One chunk of ``pipe``, kept within its bound; False when it has none now, or has
        closed (then it is no longer read)."""
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return False
        except OSError:
            chunk = b""
        if not chunk:
            self.selector.unregister(pipe)
            return False
        if pipe is self.results:
            self._keep_results(chunk)
        else:
            self._keep_stderr(chunk)
        return True

    def _keep_results(self, chunk: bytes) -> None:
        if len(self.channel) + len(chunk) > self.channel_limit:
            self.flooded = True
            return
        self.channel += chunk

    def _keep_stderr(self, chunk: bytes) -> None:
        half = BOX_STDERR_BYTES // 2
        if len(self.head) < half:
            take = half - len(self.head)
            self.head += chunk[:take]
            chunk = chunk[take:]
        self.tail += chunk
        if len(self.tail) > half:
            self.dropped += len(self.tail) - half
            del self.tail[: len(self.tail) - half]

    def stderr(self) -> str:
        middle = f"\n[... {self.dropped:,} bytes dropped ...]\n" if self.dropped else ""
        return (bytes(self.head).decode(errors="replace") + middle) + bytes(self.tail).decode(
            errors="replace"
        )

    def drain_results(self) -> None:
        """Read what the results channel holds now: its writer, the caller, has ended, so
        everything it wrote is there, however long this process waited for a CPU."""
        if self.results not in {key.fd for key in self.selector.get_map().values()}:
            return
        while not self.flooded and self._take(self.results, self.results):
            pass

    def close(self) -> None:
        for key in list(self.selector.get_map().values()):
            self.selector.unregister(key.fileobj)
        self.selector.close()
