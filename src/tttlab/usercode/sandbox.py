"""Run a student's module in a child process with a time and a memory limit.

The child is :mod:`tttlab.usercode.runner`; this side writes its job, reads its results as
they come, and stops it (its whole process group) at the deadline. Whatever the module
does (loop forever, exit, crash the interpreter, print, ask for input) ends as data in a
:class:`RawRun`, never as an exception or a hang here.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Job", "RawRun", "run_job"]


@dataclass(frozen=True)
class Job:
    """What the child should load and call.

    ``phases`` is a list of (function, cases, names it needs); ``load`` is "import" (run
    the module ``path``) or "definitions" (load ``files`` without their main code).
    """

    path: Path
    exercise: str
    load: str
    files: tuple[str, ...]
    names: tuple[str, ...]
    phases: list[tuple[str, list[Any], list[str]]]
    unlimited: tuple[str, ...]
    timed: tuple[str, ...]
    time_limit: float
    memory_mb: int
    call_seconds: float = 5.0

    @property
    def folder(self) -> Path:
        path = self.path.resolve()
        return path if path.is_dir() else path.parent

    def as_json(self) -> dict[str, Any]:
        path = self.path.resolve()
        return {
            "path": str(path),
            "module": path.stem if path.stem.isidentifier() else "submission",
            "folder": str(self.folder),
            "files": list(self.files),
            "exercise": self.exercise,
            "load": self.load,
            "names": list(self.names),
            "phases": self.phases,
            "unlimited": list(self.unlimited),
            "timed": list(self.timed),
            "memory_mb": self.memory_mb,
            "call_seconds": self.call_seconds,
            "import_seconds": min(self.time_limit, 30.0),
        }


@dataclass
class RawRun:
    """What came back from the child."""

    imported: list[Any] | None = None
    missing: list[str] = field(default_factory=list)
    constants: str | None = None
    skipped: list[str] = field(default_factory=list)
    results: dict[str, list[list[Any]]] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)
    printed: int = 0
    first_print: str = ""
    timed_out: bool = False
    returncode: int | None = None
    stderr: str = ""
    seconds: float = 0.0

    def take(self, item: Any, phase: str | None) -> str | None:
        """Record one line from the child; returns the phase now running."""
        if isinstance(item, list) and phase is not None:
            self.results[phase].append(item)
            return phase
        if not isinstance(item, dict):
            return phase
        self.printed = max(self.printed, int(item.get("printed", 0)))
        self.first_print = self.first_print or str(item.get("first_print", ""))
        if "import" in item:
            self.imported = item["import"]
            self.missing = list(item.get("missing", []))
            self.skipped = list(item.get("skipped", []))
        elif "constants" in item:
            self.constants = str(item["constants"])
        elif "phase" in item:
            phase = str(item["phase"])
            self.results[phase] = []
        elif "end" in item:
            self.finished.add(str(item["end"]))
            phase = None
        return phase


def _child_environment() -> dict[str, str]:
    env = dict(os.environ)
    env["MPLBACKEND"] = "Agg"  # a module that plots at import must not open a window
    env.pop("PYTHONSTARTUP", None)
    return env


def run_job(job: Job) -> RawRun:
    """Run ``job`` in a child process and return everything it reported.

    The child runs isolated (``-I``: no user site, no PYTHON* variables, not even the
    current folder on the path) and writes no ``__pycache__`` into a student's folder
    (``-B``)."""
    raw = RawRun()
    with tempfile.TemporaryDirectory(prefix="ttt-check-") as folder:
        job_file = Path(folder) / "job.json"
        job_file.write_text(json.dumps(job.as_json()))
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-I", "-B", "-m", "tttlab.usercode.runner", str(job_file)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=job.folder,
            env=_child_environment(),
            start_new_session=True,
        )
        lines: list[bytes] = []
        errors: list[bytes] = []
        stdout, stderr = child.stdout, child.stderr
        assert stdout is not None
        assert stderr is not None
        readers = [
            threading.Thread(target=lambda: lines.extend(iter(stdout.readline, b"")), daemon=True),
            threading.Thread(target=lambda: errors.append(stderr.read()), daemon=True),
        ]
        for reader in readers:
            reader.start()
        try:
            child.wait(timeout=job.time_limit)
        except subprocess.TimeoutExpired:
            raw.timed_out = True
            _stop(child)
        finally:
            _stop(child)
        for reader in readers:
            reader.join(timeout=5)
        raw.seconds = time.perf_counter() - start
        raw.returncode = child.returncode
    phase: str | None = None
    whole = [line for line in lines if line.endswith(b"\n")]  # not a line cut by the kill
    try:
        items = json.loads(b"[" + b",".join(whole) + b"]")
    except ValueError:  # a damaged line: read them one by one, up to it
        items = []
        for line in whole:
            try:
                items.append(json.loads(line))
            except ValueError:
                break
    for item in items:
        phase = raw.take(item, phase)
    raw.stderr = b"".join(errors).decode(errors="replace").strip()
    return raw


def _stop(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is not None:
        return
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        child.kill()
    child.wait()
