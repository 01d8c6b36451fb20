"""Training jobs for the web lab: each job is a ``ttt train ... --events -`` process.

The server never trains in its event loop or a thread. A job is the command-line trainer in
a process of its own (its own session, so a Ctrl-C meant for the server does not reach it),
which writes one JSON line per batch; the server keeps every event, so a client that
connects late is replayed the events so far, then the live ones.

- Stopping a job sends SIGTERM: the trainer finishes its batch, saves what it learned
  atomically (as Ctrl-C does on the command line) and reports ``done``.
- If the server dies, the trainer's next event meets a closed pipe and it exits without
  saving, so no agent file is written by an orphan (and a save is atomic anyway: a file is
  either whole or absent).
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

from tttlab.web.compute import ApiError

__all__ = [
    "ALGORITHMS",
    "HYPERPARAMETERS",
    "Job",
    "Jobs",
    "available",
    "check_algorithm",
    "hyperparameter_arguments",
]

TABLE = ("td", "q", "sarsa", "expected-sarsa", "double-q")
NETWORK = ("dqn", "alphazero")
ALGORITHMS = TABLE + NETWORK
_SCHEDULES = ("epsilon_schedule", "alpha_schedule")
_TABLE_KEYS = (
    "epsilon",
    "epsilon_end",
    "epsilon_schedule",
    "alpha",
    "alpha_end",
    "alpha_schedule",
    "gamma",
)
_NET_KEYS = ("batch", "hidden", "updates", "minibatch", "replay")
#: The hyperparameters each algorithm takes: ``ttt train``'s options, ``_`` for ``-``.
HYPERPARAMETERS: dict[str, tuple[str, ...]] = {
    **{name: _TABLE_KEYS for name in TABLE},
    "td": (*_TABLE_KEYS, "draw_reward"),
    "dqn": (*_TABLE_KEYS, *_NET_KEYS, "target_every", "double", "perspective"),
    "alphazero": (*_NET_KEYS, "simulations", "learning_rate", "opening"),
}
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: Finished jobs kept for replay (the oldest are forgotten first).
KEEP_FINISHED = 50


def available(algorithm: str) -> bool:
    """Whether this install can train ``algorithm`` (the network learners need the extra)."""
    if algorithm in TABLE:
        return True
    return all(importlib.util.find_spec(m) is not None for m in ("jax", "equinox", "optax"))


def check_algorithm(algorithm: str) -> None:
    """Refuse an unknown algorithm, or one this install cannot train (before any other
    check of a training request, and before :meth:`Jobs.start`)."""
    if algorithm not in ALGORITHMS:
        raise ApiError(400, f"unknown algorithm {algorithm!r} (choose {', '.join(ALGORITHMS)})")
    if not available(algorithm):
        raise ApiError(400, f"{algorithm} needs the neural extra: pip install 'tttlab[neural]'")


def hyperparameter_arguments(algorithm: str, given: dict[str, Any]) -> list[str]:
    """``ttt train`` options for the hyperparameters of a request, or an ApiError naming the
    first one that does not apply or has the wrong type. Values are checked by the trainer."""
    allowed = HYPERPARAMETERS[algorithm]
    args: list[str] = []
    for key, value in given.items():
        if key not in allowed:
            raise ApiError(
                400,
                f"hyperparameter {key!r} does not apply to {algorithm} (it takes "
                f"{', '.join(allowed)})",
            )
        option = "--" + key.replace("_", "-")
        if key == "double":
            if not isinstance(value, bool):
                raise ApiError(400, "hyperparameter 'double' must be true or false")
            args.append(option if value else "--no-double")
        elif key in (*_SCHEDULES, "perspective", "hidden"):
            if not isinstance(value, str) or not value or value.startswith("-"):
                raise ApiError(400, f"hyperparameter {key!r} must be a word such as 'linear'")
            args += [option, value]
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ApiError(400, f"hyperparameter {key!r} must be a number")
        else:
            args += [option, repr(value)]
    return args


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
    state: str = "running"  # running, stopping, done, stopped, error
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None
    reader: threading.Thread | None = None

    @property
    def finished(self) -> bool:
        return self.state in ("done", "stopped", "error")

    def summary(self) -> dict[str, Any]:
        events = list(self.events)
        last = next((d for k, d in reversed(events) if k == "progress"), None)
        done = next((d for k, d in reversed(events) if k == "done"), None)
        error = next((d for k, d in reversed(events) if k == "error"), None)
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
            "error": None if error is None else error["message"],
        }

    def read(self) -> None:
        """Runs in a thread: collect the trainer's event lines until it exits."""
        process = self.process
        assert process is not None
        out, err = process.stdout, process.stderr
        assert out is not None
        assert err is not None
        stderr: list[bytes] = []
        drain = threading.Thread(target=lambda: stderr.append(err.read()), daemon=True)
        drain.start()
        done: dict[str, Any] | None = None
        for raw in out:
            try:
                event = json.loads(raw)
            except ValueError:
                continue  # not one of the trainer's event lines
            if not isinstance(event, dict):
                continue
            kind = event.pop("event", None)
            if kind == "progress":
                self.events.append(("progress", event))
            elif kind == "done":
                event["agent"] = self.agent  # the name the page knows, never a path
                done = event
        code = process.wait()
        drain.join()
        if done is not None:
            self.state = "stopped" if done.get("interrupted") else "done"
            self.events.append(("done", done))
            return
        text = b"".join(stderr).decode("utf-8", "replace")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        message = lines[-1] if lines else f"training ended with exit code {code}"
        message = message.removeprefix("Error: ").replace(str(self.path), self.agent)
        self.events.append(("error", {"message": message}))
        self.state = "error"


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
        assert self.folder is not None
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
            command = [
                sys.executable,
                "-m",
                "tttlab",
                "train",
                algorithm,
                "--board",
                board,
                "--episodes",
                str(episodes),
                "--seed",
                str(seed),
                "--out",
                str(path),
                "--events",
                "-",
                *args,
            ]
            job.process = subprocess.Popen(
                command,
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
        the app calls it from a worker thread."""
        job = self.get(job_id)
        if not job.finished and job.process is not None and job.process.poll() is None:
            job.state = "stopping"
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

    async def events(self, job_id: str) -> AsyncIterator[str]:
        """Server-Sent Events: every event so far, then the live ones, until the end."""
        job = self.get(job_id)
        sent = 0
        quiet = 0.0
        while True:
            while sent < len(job.events):
                kind, data = job.events[sent]
                sent += 1
                quiet = 0.0
                yield f"event: {kind}\ndata: {json.dumps(data)}\n\n"
            if job.finished and sent >= len(job.events):
                return
            await asyncio.sleep(0.1)
            quiet += 0.1
            if quiet >= 15.0:
                quiet = 0.0
                yield ": still training\n\n"  # a comment keeps proxies from closing the stream
