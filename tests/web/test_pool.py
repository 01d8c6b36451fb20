"""The web lab's worker pool (``tttlab.web.pool``): each race or leak the review found pinned
by a test (no server needed: the pool is driven directly)."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from tttlab.web.compute import ApiError
from tttlab.web.pool import Pool

FAKE_WORKER = r"""
import json, sys
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    sys.exit(7)  # dies in the middle of the first call
"""


def test_a_worker_that_dies_is_reported_as_dying_and_replaced() -> None:
    pool = Pool(1, command=[sys.executable, "-c", FAKE_WORKER])
    try:
        with pytest.raises(ApiError) as caught:
            pool.call("agents", {"folder": None}, timeout=60)
        assert caught.value.status == 503
        assert "died (exit code 7)" in caught.value.message
        with pytest.raises(ApiError, match="died"):  # a new worker took its place
            pool.call("agents", {"folder": None}, timeout=60)
    finally:
        pool.close()


def test_workers_that_cannot_start_are_refused_at_once_then_retried(tmp_path: Path) -> None:
    """A worker that failed to start was never replaced: the pool shrank to nothing and
    every call waited two minutes to be told the server was busy."""
    marker = tmp_path / "second-try"
    flaky = (
        "import sys, pathlib, runpy\n"
        f"marker = pathlib.Path({str(marker)!r})\n"
        "if not marker.exists():\n"
        "    marker.touch()\n"
        "    sys.exit(3)\n"
        "runpy.run_module('tttlab.web.pool', run_name='__main__')\n"
    )
    broken = Pool(1, command=[sys.executable, "-c", "import sys; sys.exit(3)"])
    try:
        with pytest.raises(ApiError) as caught:
            broken.call("agents", {"folder": None}, timeout=60)
        assert caught.value.status == 503
        assert "cannot start its workers" in caught.value.message
        assert "exited with code 3" in caught.value.message
    finally:
        broken.close()
    pool = Pool(1, command=[sys.executable, "-c", flaky])
    try:
        deadline = time.monotonic() + 60
        while True:  # the first start fails; the pool tries again and the call is answered
            try:
                listed = pool.call("agents", {"folder": None}, timeout=60)
                break
            except ApiError as error:
                if "cannot start" not in error.message or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        assert [a["name"] for a in listed][:2] == ["random", "perfect"]
        assert marker.exists()
    finally:
        pool.close()


def test_a_worker_killed_by_close_is_no_failure_of_the_next_lifespan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """close() kills a worker still starting; its thread then saw 'exited with code -9'
    and recorded it after the next start() had cleared the pool's failure, so the next
    lifespan refused calls with that stale reason (a 503 in the schema test, seen once)."""
    release = [threading.Event(), threading.Event()]
    started: list[int] = []

    def ready(self: object, timeout: float) -> str | None:
        index = len(started)
        started.append(index)
        release[min(index, 1)].wait(10)
        return "a worker exited with code -9 while starting"

    monkeypatch.setattr("tttlab.web.pool._Worker.ready", ready)
    pool = Pool(1, command=[sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        pool.start()
        deadline = time.monotonic() + 10
        while not started and time.monotonic() < deadline:
            time.sleep(0.01)
        pool.close()  # the first worker is killed while it starts
        pool.start()  # a new lifespan: its worker is still starting
        release[0].set()  # only now does the first thread hear of the kill
        time.sleep(0.3)
        assert pool._failure is None
    finally:
        release[1].set()
        pool.close()


def test_a_worker_killed_while_it_starts_is_a_failure_not_a_thread_exception() -> None:
    """close() kills a starting worker and closes its pipe while the spawning thread is
    about to read it: that read was an unhandled OSError (Bad file descriptor) in make
    test. Here the pipe is closed before the read, which is the same race, made certain."""
    from tttlab.web.pool import _Worker

    worker = _Worker([sys.executable, "-c", "import time; time.sleep(30)"])
    worker.kill()
    assert worker.ready(5) == "a worker exited with code -9 while starting"
