"""The web lab's jobs and event streams, each race or leak the review found pinned by a test
(no server needed: the pieces are driven directly; the agent caches:
tests/web/test_compute.py; the worker pool: tests/web/test_pool.py)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tttlab.web.jobs import Job, Jobs

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
