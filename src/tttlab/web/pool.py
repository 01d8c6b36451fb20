"""Worker processes for the web API's agent work, so that work past its time limit is
ended, not left running.

Each worker is ``python -m tttlab.web.pool``: it reads one JSON request per line on stdin
(``{"call": NAME, "args": {...}}``) and answers one JSON line (``{"ok": RESULT}`` or
``{"status": CODE, "error": LINE}``). A call that outlasts its limit gets its worker killed
(SIGKILL) and replaced, and the client a 503. Workers keep their loaded agents and solved
tables between calls. Waiting happens in a thread of the server, never the work itself;
nothing here is tied to one event loop.
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

from tttlab.web.compute import ApiError

__all__ = ["Pool"]


class _Worker:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tttlab.web.pool"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._buffer = b""

    def _line(self, deadline: float) -> bytes | None:
        """The next line from the worker, or None at the deadline or if it died."""
        stdout = self.process.stdout
        assert stdout is not None
        fd = stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    return None
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return None
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def ready(self, timeout: float) -> bool:
        line = self._line(time.monotonic() + timeout)
        return line is not None and json.loads(line).get("ready") is True

    def call(self, name: str, args: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps({"call": name, "args": args}).encode() + b"\n")
            stdin.flush()
        except OSError:
            return None
        line = self._line(time.monotonic() + timeout)
        return None if line is None else dict(json.loads(line))

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


class Pool:
    """``size`` workers, started on first use; ``call`` blocks (run it in a thread)."""

    def __init__(self, size: int = 2, start_timeout: float = 120.0) -> None:
        self.size = size
        self.start_timeout = start_timeout
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._started = False

    def _spawn(self) -> None:
        worker = _Worker()
        with self._lock:
            self._all.append(worker)
        if worker.ready(self.start_timeout):
            self._idle.put(worker)
        else:
            self._retire(worker)

    def _retire(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)

    def _replace(self, worker: _Worker) -> None:
        self._retire(worker)
        threading.Thread(target=self._spawn, daemon=True).start()

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
        for _ in range(self.size):
            threading.Thread(target=self._spawn, daemon=True).start()

    def call(self, name: str, args: dict[str, Any], timeout: float) -> Any:
        """The result of ``compute.CALLS[name](**args)`` in a worker, or an ApiError: the
        worker's own refusal, or 503 when no worker is free in time or the call runs past
        ``timeout`` seconds (its worker is then killed and replaced)."""
        self.start()
        try:  # a worker may still be starting (importing takes seconds): that is not work
            worker = self._idle.get(timeout=max(timeout, self.start_timeout))
        except queue.Empty:
            raise ApiError(503, "the server is busy; try again") from None
        answer = worker.call(name, args, timeout)
        if answer is None:
            self._replace(worker)
            raise ApiError(503, f"the agent took longer than {timeout:g} s; its work was stopped")
        self._idle.put(worker)
        if "ok" in answer:
            return answer["ok"]
        raise ApiError(int(answer["status"]), str(answer["error"]))

    def close(self) -> None:
        with self._lock:
            workers, self._all = list(self._all), []
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
        except ValueError as error:  # tttlab's own errors: bad board, position, agent file
            send(
                {"status": 400, "error": str(error).splitlines()[0] if str(error) else "bad input"}
            )
        except Exception as error:
            send({"status": 500, "error": f"{type(error).__name__}: {error}"})


if __name__ == "__main__":
    main()
