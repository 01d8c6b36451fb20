"""Training jobs for the web lab: each job is a ``ttt train ... --events -`` process.

The server never trains in its event loop or a thread. A job is the command-line trainer in
a process of its own (its own session, so a Ctrl-C meant for the server does not reach it),
which writes one JSON line per batch; the server keeps every event, numbered, so a client
that connects late is replayed the events so far, then the live ones, and a client that
reconnects with ``Last-Event-ID`` gets only those it has not seen.

- A job's state changes in one place (:meth:`Job._move`), under its lock, and an event is
  written before the state that announces it: a stream that sees a finished job has seen its
  last event.
- Stopping a job sends SIGTERM: the trainer finishes its batch, saves what it learned
  atomically (as Ctrl-C does on the command line) and reports ``done``.
- If the server dies, the trainer's next event meets a closed pipe and it exits without
  saving; if it was saving then, it removes the file once its ``done`` line cannot be
  written. So no agent file is left by an orphan.
- When the server shuts down cleanly it stops its jobs the same way as ``DELETE`` does, so
  what they learned is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tttlab.errors import TttlabError
from tttlab.hyperparameters import BY_NAME, LEARNERS, TABLE_LEARNERS, check_options
from tttlab.web.compute import ApiError

__all__ = ["Job", "Jobs", "available", "check_algorithm", "hyperparameter_arguments"]

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: Finished jobs kept for replay (the oldest are forgotten first).
KEEP_FINISHED = 50
#: A job's states; the last three are final.
STATES = ("running", "stopping", "done", "stopped", "failed")
_FINAL = frozenset(STATES[2:])


def available(algorithm: str) -> bool:
    """Whether this install can train ``algorithm`` (the network learners need the extra)."""
    if algorithm in TABLE_LEARNERS:
        return True
    return all(importlib.util.find_spec(m) is not None for m in ("jax", "equinox", "optax"))


def check_algorithm(algorithm: str) -> None:
    """Refuse an unknown algorithm, or one this install cannot train (before any other
    check of a training request, and before :meth:`Jobs.start`)."""
    if algorithm not in LEARNERS:
        raise ApiError(400, f"unknown algorithm {algorithm!r} (choose {', '.join(LEARNERS)})")
    if not available(algorithm):
        raise ApiError(400, f"{algorithm} needs the neural extra: pip install 'tttlab[neural]'")


def hyperparameter_arguments(algorithm: str, given: dict[str, Any]) -> list[str]:
    """``ttt train`` options for the hyperparameters of a request, checked against their one
    declaration (:mod:`tttlab.hyperparameters`), or an ApiError naming the first that does
    not apply or does not fit."""
    try:
        chosen = check_options(algorithm, given)
    except TttlabError as error:
        raise ApiError(400, str(error)) from None
    return [word for name, value in chosen.items() for word in BY_NAME[name].argv(value)]


@dataclass(frozen=True)
class Event:
    """One numbered event of a job (the SSE ``id``)."""

    id: int
    kind: str  # progress, done or failed
    data: dict[str, Any]

    def sse(self) -> str:
        return f"id: {self.id}\nevent: {self.kind}\ndata: {json.dumps(self.data)}\n\n"


@dataclass
class Job:
    """One training process and every event it sent (a thread reads them; the server's
    event loop only polls the list, so no asyncio object outlives a request)."""

    id: str
    algorithm: str
    board: str
    episodes: int
    seed: int
    agent: str  # the file name in the agents folder
    path: Path
    started: float = field(default_factory=time.time)
    process: subprocess.Popen[bytes] | None = None
    reader: threading.Thread | None = None
    _state: str = "running"
    _events: list[Event] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def state(self) -> str:
        with self._lock:
            return self._state

    @property
    def finished(self) -> bool:
        return self.state in _FINAL

    def _move(self, state: str, event: tuple[str, dict[str, Any]] | None = None) -> bool:
        """The one place a job's state changes: ``running`` → ``stopping`` → a final state
        (or ``running`` → a final state). A final state never changes again; its event is
        appended first, under the same lock. Returns whether the move happened."""
        with self._lock:
            if self._state in _FINAL or (state == "stopping" and self._state != "running"):
                return False
            if event is not None:
                self._append(*event)
            self._state = state
            return True

    def _append(self, kind: str, data: dict[str, Any]) -> None:
        self._events.append(Event(len(self._events) + 1, kind, data))

    def record(self, kind: str, data: dict[str, Any]) -> None:
        with self._lock:
            self._append(kind, data)

    def events_after(self, last: int) -> tuple[list[Event], bool]:
        """The events after id ``last``, and whether the job had finished when they were
        read (then there will be no more)."""
        with self._lock:
            return self._events[max(0, last) :], self._state in _FINAL

    def request_stop(self) -> bool:
        """Mark a running job as stopping (False if it is stopping or finished already)."""
        return self._move("stopping")

    def summary(self) -> dict[str, Any]:
        events, _ = self.events_after(0)
        last = next((e.data for e in reversed(events) if e.kind == "progress"), None)
        done = next((e.data for e in reversed(events) if e.kind == "done"), None)
        failed = next((e.data for e in reversed(events) if e.kind == "failed"), None)
        return {
            "job": self.id,
            "algorithm": self.algorithm,
            "board": self.board,
            "episodes": self.episodes,
            "seed": self.seed,
            "agent": self.agent,
            "state": self.state,
            "episode": done["episodes"] if done is not None else (last or {}).get("episode", 0),
            "evaluation": None if done is None else done.get("evaluation"),
            "error": None if failed is None else failed["message"],
        }

    def read(self) -> None:
        """Runs in a thread: collect the trainer's event lines until it exits."""
        process = self.process
        if process is None or process.stdout is None or process.stderr is None:
            return
        err = process.stderr
        stderr: list[bytes] = []
        drain = threading.Thread(target=lambda: stderr.append(err.read()), daemon=True)
        drain.start()
        done: dict[str, Any] | None = None
        for raw in process.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue  # not one of the trainer's event lines
            if not isinstance(event, dict):
                continue
            kind = event.pop("event", None)
            if kind == "progress":
                self.record("progress", event)
            elif kind == "done":
                event["agent"] = self.agent  # the name the page knows, never a path
                done = event
        code = process.wait()
        drain.join()
        if done is not None:
            self._move("stopped" if done.get("interrupted") else "done", ("done", done))
            return
        text = b"".join(stderr).decode("utf-8", "replace")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        message = lines[-1] if lines else f"training ended with exit code {code}"
        message = message.removeprefix("ttt: error: ").replace(str(self.path), self.agent)
        self._move("failed", ("failed", {"message": message}))


class Jobs:
    """The jobs of one server process: at most ``limit`` running at once."""

    def __init__(self, folder: Path | None, limit: int, max_episodes: int) -> None:
        self.folder = folder
        self.limit = limit
        self.max_episodes = max_episodes
        self.jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def running(self) -> list[Job]:
        return [j for j in list(self.jobs.values()) if not j.finished]

    def _target(self, name: str | None, algorithm: str, board: str, seed: int) -> Path:
        if self.folder is None:
            raise ApiError(409, "this server has no agents folder to save to (ttt serve --agents)")
        if name is None:
            stem = f"{algorithm}-{board}-seed{seed}"
            name = f"{stem}.npz"
            n = 2
            while (self.folder / name).exists() or self._claimed(name):
                name = f"{stem}-{n}.npz"
                n += 1
        else:
            if not name.endswith(".npz"):
                name += ".npz"
            if not NAME.match(name) or name.endswith(".ckpt.npz"):
                raise ApiError(
                    400,
                    f"name {name!r} must be letters, digits, '.', '-' or '_' (at most 64, "
                    "not starting with '.')",
                )
            if (self.folder / name).exists() or self._claimed(name):
                raise ApiError(409, f"an agent named {name} already exists; choose another name")
        return self.folder / name

    def _claimed(self, name: str) -> bool:
        return any(j.agent == name for j in self.running())

    def start(
        self,
        algorithm: str,
        board: str,
        episodes: int,
        seed: int,
        name: str | None,
        hyperparameters: dict[str, Any],
    ) -> Job:
        """Start ``ttt train`` for a request whose algorithm passed :func:`check_algorithm`."""
        if self.folder is None:
            raise ApiError(409, "this server has no agents folder to save to (ttt serve --agents)")
        if self.limit == 0:
            raise ApiError(
                503, "training is off on this server (ttt serve --jobs 0, or --workers above 1)"
            )
        if episodes > self.max_episodes:
            raise ApiError(
                400,
                f"episodes are limited to {self.max_episodes:,} on this server (ttt serve "
                "--max-episodes)",
            )
        args = hyperparameter_arguments(algorithm, hyperparameters)
        with self._lock:
            if len(self.running()) >= self.limit:
                raise ApiError(
                    429,
                    f"{self.limit} training job{'s' if self.limit > 1 else ''} already "
                    "running; stop one or wait",
                )
            path = self._target(name, algorithm, board, seed)
            job = Job(uuid.uuid4().hex[:12], algorithm, board, episodes, seed, path.name, path)
            command = [sys.executable, "-m", "tttlab", "train", algorithm, "--board", board]
            command += ["--episodes", str(episodes), "--seed", str(seed), "--out", str(path)]
            job.process = subprocess.Popen(
                [*command, "--events", "-", *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "100"},
            )
            job.reader = threading.Thread(target=job.read, name=f"job-{job.id}", daemon=True)
            job.reader.start()
            self.jobs[job.id] = job
            self._forget_old()
        return job

    def _forget_old(self) -> None:
        finished = [j for j in self.jobs.values() if j.finished]
        for job in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self.jobs[job.id]

    def get(self, job_id: str) -> Job:
        job = self.jobs.get(job_id)
        if job is None:
            raise ApiError(404, f"unknown job {job_id!r}")
        return job

    def stop(self, job_id: str, wait: float = 120.0) -> Job:
        """Ask the trainer to stop (it saves what it learned), and wait for it. Blocking:
        the app calls it from a thread of its own, never one that serves agent work."""
        job = self.get(job_id)
        if job.request_stop() and job.process is not None:
            with contextlib.suppress(ProcessLookupError):
                job.process.send_signal(signal.SIGTERM)
        if job.reader is not None:
            job.reader.join(wait)
            if job.reader.is_alive():
                raise ApiError(503, f"job {job_id} did not stop within {wait:g} s")
        return job

    def stop_all(self, wait: float = 30.0) -> None:
        for job in self.running():
            with contextlib.suppress(ApiError):
                self.stop(job.id, wait)

    async def events(self, job_id: str, last_event_id: int = 0) -> AsyncIterator[str]:
        """Server-Sent Events: every event after ``last_event_id`` (0: all of them), then
        the live ones, until the job has finished and its last event is sent."""
        job = self.get(job_id)
        sent = max(0, last_event_id)
        quiet = 0.0
        yield "retry: 2000\n\n"  # a dropped stream reconnects in 2 s, with Last-Event-ID
        while True:
            events, finished = job.events_after(sent)
            for event in events:
                sent = event.id
                quiet = 0.0
                yield event.sse()
            if finished:
                return
            await asyncio.sleep(0.1)
            quiet += 0.1
            if quiet >= 15.0:
                quiet = 0.0
                yield ": still training\n\n"  # a comment keeps proxies from closing the stream
