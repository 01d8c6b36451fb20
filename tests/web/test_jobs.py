"""The web lab's jobs, event streams, agent caches and worker pool, each race or leak the
review found pinned by a test (no server needed: the pieces are driven directly)."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import ttt
from tttlab.web import compute
from tttlab.web.compute import ApiError
from tttlab.web.jobs import Job, Jobs
from tttlab.web.pool import Pool

DONE = {"agent": "a.npz", "episodes": 10, "interrupted": False}


def a_job(jobs: Jobs | None = None) -> Job:
    job = Job("j1", "q", "3x3k3", 10, 0, "a.npz", Path("a.npz"))
    if jobs is not None:
        jobs.jobs[job.id] = job
    return job


def stream(jobs: Jobs, job_id: str, last: int = 0) -> list[str]:
    async def collect() -> list[str]:
        return [chunk async for chunk in jobs.events(job_id, last)]

    return asyncio.run(collect())


def parsed(chunks: list[str]) -> list[tuple[int, str, dict[str, Any]]]:
    events = []
    for chunk in chunks:
        fields = dict(line.split(": ", 1) for line in chunk.strip().splitlines() if ": " in line)
        if "event" in fields:
            events.append((int(fields["id"]), fields["event"], json.loads(fields["data"])))
    return events


def test_a_finished_job_has_already_written_its_last_event(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream ends when it sees the job finished; it must have seen ``done`` by then (the
    state used to be set before the event was appended)."""
    job = a_job()
    job.record("progress", {"episode": 5})
    real_append = Job._append
    appending = threading.Event()

    def slow_append(self: Job, kind: str, data: dict[str, Any]) -> None:
        if kind == "done":
            appending.set()
            time.sleep(0.3)  # a reader looks now, in the middle of the append
        real_append(self, kind, data)

    monkeypatch.setattr(Job, "_append", slow_append)
    finisher = threading.Thread(target=job._move, args=("done", ("done", DONE)))
    finisher.start()
    appending.wait(5)
    events, finished = job.events_after(0)
    finisher.join()
    assert finished
    assert [e.kind for e in events] == ["progress", "done"]


def test_stop_never_overwrites_a_finished_job() -> None:
    """The trainer finishing while ``stop`` runs left the job "stopping" for ever, holding
    a training slot. Here it finishes exactly when it is signalled."""
    jobs = Jobs(Path("."), limit=1, max_episodes=10)
    job = a_job(jobs)

    class Process:
        def send_signal(self, signum: int) -> None:
            job._move("stopped", ("done", {**DONE, "interrupted": True}))

        def poll(self) -> None:
            return None

    job.process = Process()  # type: ignore[assignment]
    assert jobs.stop(job.id).state == "stopped"
    assert jobs.running() == []  # the slot is free
    assert not job.request_stop()  # and a later stop changes nothing
    assert job.state == "stopped"
    assert not job._move("failed", ("failed", {"message": "late"}))
    assert [e.kind for e in job.events_after(0)[0]] == ["done"]


def test_events_are_numbered_and_a_reconnection_gets_only_the_rest() -> None:
    jobs = Jobs(Path("."), limit=1, max_episodes=10)
    job = a_job(jobs)
    for episode in (2, 4, 6):
        job.record("progress", {"episode": episode})
    job._move("done", ("done", DONE))
    everything = parsed(stream(jobs, job.id))
    assert [(i, kind) for i, kind, _ in everything] == [
        (1, "progress"),
        (2, "progress"),
        (3, "progress"),
        (4, "done"),
    ]
    assert parsed(stream(jobs, job.id, last=2)) == everything[2:]
    assert stream(jobs, job.id)[0].startswith("retry: ")


def test_a_failing_job_reports_failed_not_eventsources_own_error(tmp_path: Path) -> None:
    jobs = Jobs(tmp_path / "gone", limit=1, max_episodes=10)
    job = jobs.start("q", "3x3k3", 10, 0, None, {})  # its folder does not exist
    assert job.reader is not None
    job.reader.join(60)
    events = parsed(stream(jobs, job.id))
    assert [kind for _, kind, _ in events] == ["failed"]
    message = events[0][2]["message"]
    assert "does not exist" in message
    assert str(tmp_path) not in message.replace(str(tmp_path / "gone"), "")
    assert job.state == "failed"
    assert job.summary()["error"] == message


def _train(folder: Path, name: str, algorithm: str) -> None:
    out = str(folder / name)
    result = ttt("train", algorithm, "--episodes", "300", "--out", out)
    assert result.returncode == 0, result.stderr


def test_a_file_trained_again_under_the_same_name_is_read_again(tmp_path: Path) -> None:
    """Agents and their evaluations were cached by name only: a file deleted and trained
    again kept serving the old agent."""
    folder = str(tmp_path)
    _train(tmp_path, "a.npz", "q")
    first = compute.call_evaluate(folder, "a.npz", "3x3k3")
    first_move = compute.call_values(folder, "a.npz", "3x3k3", ".........")
    (tmp_path / "a.npz").unlink()
    time.sleep(0.01)  # a new modification time even on coarse clocks
    _train(tmp_path, "a.npz", "td")
    second = compute.call_evaluate(folder, "a.npz", "3x3k3")
    second_move = compute.call_values(folder, "a.npz", "3x3k3", ".........")
    assert second != first
    assert second_move != first_move
    listed = {a["name"]: a for a in compute.call_agents(folder)}
    assert listed["a.npz"]["algorithm"] == "td"
    expected = json.loads(ttt("eval", str(tmp_path / "a.npz"), "--json").stdout)
    assert second == expected


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
