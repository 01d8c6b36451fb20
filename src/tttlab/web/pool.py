"""Worker processes for the web API's agent work, so that work past its time limit is
ended, not left running.

Each worker is ``python -m tttlab.web.pool``: it reads one JSON request per line on stdin
(``{"call": NAME, "args": {...}}``) and answers one JSON line (``{"ok": RESULT}`` or
``{"status": CODE, "error": LINE}``). A call that outlasts its limit gets its worker killed
(SIGKILL) and replaced, and the client a 503; a worker that dies during a call is reported
as such, and replaced. The pool keeps ``size`` workers: one that fails to start is tried
again, with a growing pause, and while none can start a call is refused at once with the
reason. Workers keep their loaded agents and solved tables between calls. Waiting happens in
a thread of the server, never the work itself; nothing here is tied to one event loop.
"""

from __future__ import annotations

import json
import os
import queue
import selectors
import subprocess
import sys
import threading
import time
from typing import Any

from tttlab.errors import TttlabError
from tttlab.web.compute import ApiError

__all__ = ["Pool"]

#: Pauses between attempts to start a worker that failed to start, in seconds.
_RETRY_FIRST, _RETRY_MOST = 0.5, 30.0


class _Worker:
    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # never read: a full pipe would stall the worker
            start_new_session=True,
        )
        self._buffer = b""

    def _line(self, deadline: float, cancel: threading.Event | None = None) -> bytes | None:
        """The next line from the worker, or None at the deadline, once ``cancel`` is set,
        or if it died."""
        stdout = self.process.stdout
        assert stdout is not None
        try:  # close() may kill the worker, and close its pipe, while this thread reads
            fd = stdout.fileno()
            with selectors.DefaultSelector() as selector:
                selector.register(fd, selectors.EVENT_READ)
                while b"\n" not in self._buffer:
                    left = deadline - time.monotonic()
                    if left <= 0 or (cancel is not None and cancel.is_set()):
                        return None
                    if not selector.select(min(left, 0.1)):
                        continue
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        return None
                    self._buffer += chunk
        except (OSError, ValueError):  # the pipe was closed under us: the worker is gone
            return None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def ready(self, timeout: float) -> str | None:
        """None once the worker says it is ready, else why it did not start."""
        line = self._line(time.monotonic() + timeout)
        if line is not None and json.loads(line).get("ready") is True:
            return None
        code = self.crashed()
        if code is None:
            return f"a worker did not start within {timeout:g} s"
        return f"a worker exited with code {code} while starting"

    def call(
        self, name: str, args: dict[str, Any], timeout: float, cancel: threading.Event | None
    ) -> dict[str, Any] | None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps({"call": name, "args": args}).encode() + b"\n")
            stdin.flush()
        except (OSError, ValueError):  # a dead worker, or one already killed
            return None
        line = self._line(time.monotonic() + timeout, cancel)
        return None if line is None else dict(json.loads(line))

    def crashed(self) -> int | None:
        """The exit code if the worker has died (after a call that got no answer)."""
        try:
            return self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


class Pool:
    """``size`` workers, started on first use; ``call`` blocks (run it in a thread)."""

    def __init__(
        self, size: int = 2, start_timeout: float = 120.0, command: list[str] | None = None
    ) -> None:
        self.size = size
        self.start_timeout = start_timeout
        self.command = command or [sys.executable, "-m", "tttlab.web.pool"]
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: list[_Worker] = []
        self._starting = 0
        self._failure: str | None = None  # why the latest start failed, while none is up
        self._lock = threading.Lock()
        self._started = False
        self._closed = threading.Event()

    def _spawn(self, closed: threading.Event) -> None:
        """Start one worker, trying again (with a growing pause) until one starts or the
        pool is closed (``closed``: the event of the pool's life this thread serves)."""
        pause = _RETRY_FIRST
        try:
            while not closed.is_set():
                worker = _Worker(self.command)
                with self._lock:
                    self._all.append(worker)
                failure = worker.ready(self.start_timeout)
                if failure is None:
                    with self._lock:
                        if not closed.is_set():
                            self._failure = None
                            self._idle.put(worker)
                            return
                self._retire(worker)  # it failed, or the pool closed while it started
                if failure is None or closed.is_set():
                    return  # a worker killed by close() is no failure of the next lifespan's
                with self._lock:
                    if closed.is_set():
                        return
                    self._failure = failure
                closed.wait(pause)
                pause = min(pause * 2, _RETRY_MOST)
        finally:
            with self._lock:
                self._starting -= 1

    def _start_one(self) -> None:
        with self._lock:
            self._starting += 1
            closed = self._closed
        threading.Thread(target=self._spawn, args=(closed,), daemon=True).start()

    def _retire(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)

    def start(self) -> None:
        """Start the workers (again after :meth:`close`: an app may live through several
        lifespans)."""
        with self._lock:
            if self._started:
                return
            self._started = True
            self._closed = threading.Event()
            self._failure = None
        for _ in range(self.size):
            self._start_one()

    def _idle_worker(self, timeout: float) -> _Worker:
        """A free worker: waiting up to ``timeout`` for one to finish its call, and up to the
        start timeout for one still starting (importing takes seconds; that is not work)."""
        begun = time.monotonic()
        while True:
            try:
                return self._idle.get(timeout=0.05)
            except queue.Empty:
                pass
            with self._lock:
                up = len(self._all) - self._starting  # started and not retired
                failure = self._failure
            waited = time.monotonic() - begun
            if up <= 0 and failure is not None:
                raise ApiError(503, f"the server cannot start its workers: {failure}")
            if waited > (self.start_timeout if up <= 0 else timeout):
                raise ApiError(503, "the server is busy; try again")

    def call(
        self, name: str, args: dict[str, Any], timeout: float, cancel: threading.Event | None = None
    ) -> Any:
        """The result of ``compute.CALLS[name](**args)`` in a worker, or an ApiError: the
        worker's own refusal; or 503 when no worker is free in time, when the call runs past
        ``timeout`` seconds, or when its worker dies; 499 once ``cancel`` is set (the worker
        is then killed, with what it started, and replaced)."""
        self.start()
        worker = self._idle_worker(timeout)
        answer = worker.call(name, args, timeout, cancel)
        if answer is None:
            cancelled = cancel is not None and cancel.is_set()
            code = None if cancelled else worker.crashed()
            self._retire(worker)
            self._start_one()
            if cancelled:
                raise ApiError(499, "the page went away; its work was stopped")
            if code is not None:
                raise ApiError(
                    503, f"the worker doing this work died (exit code {code}); try again"
                )
            raise ApiError(503, f"the agent took longer than {timeout:g} s; its work was stopped")
        self._idle.put(worker)
        if "ok" in answer:
            return answer["ok"]
        raise ApiError(int(answer["status"]), str(answer["error"]))

    def close(self) -> None:
        with self._lock:
            self._closed.set()
            self._started = False
            workers, self._all = list(self._all), []
            while not self._idle.empty():
                self._idle.get_nowait()
        for worker in workers:
            worker.kill()


def main() -> None:
    """A worker: answer requests from stdin until it closes."""
    from tttlab.web.compute import CALLS

    reply = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout = sys.stderr  # nothing else may write to the answer stream

    def send(message: dict[str, Any]) -> None:
        reply.write(json.dumps(message) + "\n")
        reply.flush()

    send({"ready": True})
    for line in sys.stdin:
        try:
            request = json.loads(line)
            result = CALLS[request["call"]](**request["args"])
            send({"ok": result})
        except ApiError as error:
            send({"status": error.status, "error": error.message})
        except TttlabError as error:  # a bad board, position or agent file
            send({"status": 400, "error": str(error).splitlines()[0] or "bad input"})
        except Exception as error:
            send({"status": 500, "error": f"{type(error).__name__}: {error}"})


if __name__ == "__main__":
    main()
