"""The worker, seen from the caller: one process and its two pipes, asked questions that it
answers one at a time, in order, each with a fresh random number its answer must repeat
(standard library only). Its clock is the caller's: a call that runs past its limit, ends
the worker, or answers out of the protocol is :class:`Gone`, with the outcome that says how.

Questions may be sent ahead of the answers still due (:meth:`Worker.send_ahead`): the worker
then goes from one call to the next without waiting for the caller, and the two take fewer
turns on their one CPU (a course folder's check: 5.6 s to 4.3 s). A call's limit
starts when the caller starts waiting for its answer, that is once it has read the answer
before it, so the call is never charged with the calls before it.

A limit counts the call's own time (:mod:`.clock`): the clock, less the time the worker and
the caller waited for a CPU, so that a busy machine's delay is never the student's. A loop
is stopped after its limit of CPU time, a call that sleeps after its limit on the clock.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from typing import Any

from .clock import OwnClock, Waits

__all__ = ["AHEAD", "READY_SECONDS", "STARVED_TIMES", "Gone", "Limit", "Worker"]

#: Seconds of its own time the worker has to say it is ready (a Python starting in a box,
#: before any of the student's code: past it, the grader failed).
READY_SECONDS = 60.0
#: Where the kernel does not say how long a process waited for a CPU, a limit counts the
#: worker's CPU time instead, up to this many times the limit on the clock: a call that
#: slept or waited that long has not returned within its limit.
STARVED_TIMES = 10
#: The most questions sent ahead of their answers. Each is written whole or not at all (a
#: pipe's write of at most PIPE_BUF bytes is atomic) and never waits for room: the caller
#: never blocks on a full pipe while the worker blocks on the other (:meth:`send_ahead`).
AHEAD = 256
ATOMIC = getattr(select, "PIPE_BUF", 512)
#: Clock ticks a second, the unit of /proc's CPU times.
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class Gone(Exception):
    """The worker did not answer: ``outcome`` says how (``["t"]``, ``["k", how]``,
    ``["b", why]``)."""

    def __init__(self, outcome: list[Any]) -> None:
        super().__init__(outcome)
        self.outcome = outcome


class Worker:
    """One worker process and its two pipes: questions asked one at a time (:meth:`ask`) or
    sent ahead of the answers due (:meth:`send_ahead`, :meth:`answer_to`)."""

    def __init__(self, job_path: str) -> None:
        entry = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__main__.py")
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-B", entry, "worker", job_path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.to, self.back = self.process.stdin.fileno(), self.process.stdout.fileno()
        os.set_blocking(self.to, False)
        os.set_blocking(self.back, False)
        self.writing, self.reading = select.poll(), select.poll()
        self.writing.register(self.to, select.POLLOUT)
        self.reading.register(self.back, select.POLLIN)
        self.buffer = bytearray()
        #: Read again at every question: kept open (opening them costs as much as a call).
        self.waits = Waits(self.process.pid, "self")
        try:
            self.stat: int | None = os.open(f"/proc/{self.process.pid}/stat", os.O_RDONLY)
        except OSError:
            self.stat = None

    def ready(self) -> str | None:
        """None once the worker says it is ready; else why it is not (the grader's failure:
        none of the student's code has run yet)."""
        try:
            line = self._line(Limit(self, READY_SECONDS), 4096)
        except Gone as gone:
            how = gone.outcome[1] if len(gone.outcome) > 1 else "it did not say it was ready"
            return f"the box's worker did not start: {how}"
        if line != b'{"ready":true}':
            return "the box's worker did not start: it said something else first"
        return None

    def ask(self, question: dict[str, Any], seconds: float | None, allowance: int) -> Any:
        """The answer to ``question`` (a dict with the question's own number as ``n``) within
        ``seconds`` of its own time (None: no limit), or :class:`Gone`; lines that answer
        another question are dropped."""
        limit = None if seconds is None else Limit(self, seconds)
        nonce = self._nonce(question)
        self._send(json.dumps(question).encode() + b"\n", limit)
        return self._answer(nonce, limit, allowance)

    def send_ahead(self, question: dict[str, Any]) -> str | None:
        """Send ``question`` now, ahead of the answers still due, without waiting: its number
        (for :meth:`answer_to`), or None where it cannot go without waiting (the pipe has no
        room for it whole, or it is longer than one atomic write) or the worker has ended
        (the answer due says how)."""
        nonce = self._nonce(question)
        data = json.dumps(question).encode() + b"\n"
        if len(data) > ATOMIC:
            return None
        try:
            os.write(self.to, data)  # whole or not at all (BlockingIOError: no room)
        except OSError:
            return None
        return nonce

    def answer_to(self, nonce: str, seconds: float | None, allowance: int) -> Any:
        """The answer to the question sent ahead as ``nonce``, within ``seconds`` of its own
        time from now (the answers before it have been read), or :class:`Gone`."""
        return self._answer(nonce, None if seconds is None else Limit(self, seconds), allowance)

    @staticmethod
    def _nonce(question: dict[str, Any]) -> str:
        nonce = os.urandom(8).hex()
        question["n"] = nonce
        return nonce

    def _answer(self, nonce: str, limit: Limit | None, allowance: int) -> Any:
        while True:
            line = self._line(limit, allowance)
            try:
                answer = json.loads(line)
            except (ValueError, RecursionError):
                raise Gone(["b", "a line that is not JSON"]) from None
            if type(answer) is not dict:
                raise Gone(["b", "a line that is not an answer"])
            if answer.get("n") == nonce:
                return answer

    def cpu(self) -> float | None:
        """The worker's CPU time so far, in seconds (None where /proc cannot say)."""
        if self.stat is None:
            return None
        try:
            fields = os.pread(self.stat, 1024, 0).rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / TICKS
        except (OSError, IndexError, ValueError):
            return None

    def _send(self, data: bytes, limit: Limit | None) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.to, view) :]
                continue
            except BlockingIOError:
                pass
            except OSError:
                raise Gone(["k", self._ended()]) from None
            self._wait(self.writing, limit)

    def _line(self, limit: Limit | None, most: int) -> bytes:
        while b"\n" not in self.buffer:
            if len(self.buffer) > most:
                raise Gone(["b", f"an answer of more than {most:,} bytes"])
            self._wait(self.reading, limit)
            try:
                chunk = os.read(self.back, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                raise Gone(["k", self._ended()])
            self.buffer += chunk
        end = self.buffer.index(b"\n")
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        if len(line) > most:
            raise Gone(["b", f"an answer of more than {most:,} bytes"])
        return line

    def _wait(self, poll: select.poll, limit: Limit | None) -> None:
        """Until the pipe is ready (or has closed); :class:`Gone` once ``limit`` is spent, or
        as soon as the worker has ended (a process it started may still hold its pipe)."""
        while True:
            left = None if limit is None else limit.deadline - time.monotonic()
            if poll.poll(100 if left is None else max(0, min(100, int(left * 1000) + 1))):
                return
            if self.process.poll() is not None:
                raise Gone(["k", self._ended()])
            if limit is not None and left is not None and left <= 0 and not limit.later():
                raise Gone(["t"])

    def _ended(self) -> str:
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "it closed its pipe"
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(-code).name}"
        return f"exit code {code}"

    def end(self) -> None:
        """End the worker and whatever it started in its session."""
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.process.kill()
        self.process.wait()
        self.waits.close()
        if self.stat is not None:
            with contextlib.suppress(OSError):
                os.close(self.stat)
            self.stat = None
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()


class Limit:
    """A limit of ``seconds`` of a call's own time: the clock, less the time the worker and
    the caller waited for a CPU (:mod:`.clock`). Where the kernel does not say how long they
    waited, the worker's CPU time, up to :data:`STARVED_TIMES` the limit on the clock."""

    def __init__(self, worker: Worker, seconds: float) -> None:
        self.worker, self.seconds = worker, seconds
        self.start = time.monotonic()
        self.deadline = self.start + seconds
        self.clock = OwnClock(worker.waits)
        self.cpu = worker.cpu() if self.clock.waited is None else None

    def later(self) -> bool:
        """At the deadline: whether the call has some of its own time left, and if so the
        deadline moved to when it would be spent."""
        now = time.monotonic()
        own = self.clock.own()
        if own is not None:
            left = self.seconds - own
        else:  # no scheduler statistics: the worker's CPU time, on the clock up to a cap
            used = self.worker.cpu()
            if self.cpu is None or used is None:
                return False
            cap = self.start + self.seconds * STARVED_TIMES
            left = min(self.seconds - (used - self.cpu), cap - now)
        if left < 0.02:  # not worth another wait
            return False
        self.deadline = now + left
        return True
