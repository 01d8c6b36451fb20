"""Run a student's module in its box (:mod:`tttlab.usercode.box`) and read what the box
reports, believing nothing.

The box runs a copy of :mod:`tttlab.usercode.boxside`: its caller owns the results channel and
asks a worker, which holds the student's code and answers one call at a time. This side
writes the job, reads both of the box's pipes with bounds (the results channel up to what
the plan can need, stderr's head and tail), stops the box at the deadline, and checks every
line it read: its type, its range and the phase it belongs to. Whatever the module does
(loop forever, exit, crash, flood a pipe, leave processes behind) ends as data in a
:class:`RawRun`, never as an exception or a hang here.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tttlab.limits import (
    BOX_PROCESSES,
    BOX_WRITABLE_BYTES,
    CALL_ANSWER_BYTES,
    TABLE_ANSWER_BYTES,
)
from tttlab.usercode import box, processes
from tttlab.usercode.cpus import held_cpu
from tttlab.usercode.pipes import Pipes
from tttlab.usercode.protocol import Reader

__all__ = ["ABANDON", "Job", "RawRun", "run_job"]

#: Set to end every box that is running (``ttt check -j``: a Ctrl-C in the main thread
#: stops the grading threads, each within a tenth of a second, its box removed).
ABANDON = threading.Event()

#: How long a finished box's leftover processes may keep its pipes open.
DRAIN_SECONDS = 1.0

#: What the box's grader folder holds: the box's side of ``ttt check``, and nothing else.
_BOXSIDE = Path(__file__).parent / "boxside"


@dataclass(frozen=True)
class Job:
    """What the box should load and call.

    ``path`` is the submission (a file, or the folder holding ``module``); ``phases`` is a
    list of (function, cases, names it needs); ``load`` is "import" (run the module) or
    "definitions" (load ``files`` without their main code).
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
    module: str = ""
    #: The module each file is (``model.environment``), loaded in this order.
    modules: tuple[str, ...] = ()
    #: ``--name``: the exercise's names mapped to the student's.
    renames: dict[str, str] = field(default_factory=dict)
    #: Where the grader read that each name is defined (a module of ``modules``).
    lookup: dict[str, str] = field(default_factory=dict)
    #: The largest answer a call of each of these checks may give, where the exercise
    #: says (an episode with the entries of the table it changed).
    answer_limits: dict[str, int] = field(default_factory=dict)
    #: A notebook's module (its file) and the lines of each of its cells, [first, last]:
    #: where such a module is run whole, its cells are run one at a time, as a kernel does.
    cells: dict[str, list[list[int]]] = field(default_factory=dict)

    @property
    def import_seconds(self) -> float:
        return min(self.time_limit, 30.0)

    def as_json(self, stage: str | None, processes: int, cpu: int | None = None) -> dict[str, Any]:
        module = self.module or (self.files[0] if self.files else "")
        stem = Path(module).stem
        return {
            "path": module,
            "module": stem if stem.isidentifier() else "submission",
            "files": list(self.files),
            "modules": list(self.modules),
            "renames": self.renames,
            "lookup": self.lookup,
            "cells": self.cells,
            "exercise": self.exercise,
            "load": self.load,
            "names": list(self.names),
            "phases": self.phases,
            "unlimited": list(self.unlimited),
            "timed": list(self.timed),
            "call_seconds": self.call_seconds,
            "import_seconds": self.import_seconds,
            "answer_bytes": [self.answer_bytes(cases, f) for f, cases, _ in self.phases],
            "stage": stage,
            "cpu": cpu,
            "limits": {
                "RLIMIT_AS": self.memory_mb * 2**20,
                "RLIMIT_CPU": int(self.time_limit) + 5,
                "RLIMIT_FSIZE": BOX_WRITABLE_BYTES,
                "RLIMIT_NOFILE": 256,
                "RLIMIT_CORE": 0,
                "RLIMIT_NPROC": processes,
            },
        }

    def answer_bytes(self, cases: list[Any], function: str = "") -> int:
        """The largest answer a call of a check may give: the exercise's bound for it, else
        a whole table for a check of one call, else a call's."""
        if function in self.answer_limits:
            return self.answer_limits[function]
        return TABLE_ANSWER_BYTES if len(cases) == 1 else CALL_ANSWER_BYTES

    def channel_bytes(self) -> int:
        """The most the caller can write: each call's answer and time, each mark."""
        calls = sum(len(cases) * (self.answer_bytes(cases, f) + 32) for f, cases, _ in self.phases)
        return calls + len(self.phases) * 4096 + 2**20


@dataclass
class RawRun:
    """What came back from the box, every line checked."""

    imported: list[Any] | None = None
    missing: list[str] = field(default_factory=list)
    constants: str | None = None
    skipped: list[str] = field(default_factory=list)
    #: The modules that are not installed, stood in for by stubs (top-level names).
    stubbed: list[str] = field(default_factory=list)
    #: How the exercise's side took the student's code, where not the text's way (notes),
    #: and why no check could run (an agent that no way builds), in the box's words.
    notes: list[str] = field(default_factory=list)
    problem: str | None = None
    #: How the agent was made, as a line to paste, and X's and O's symbols as it was given
    #: them (``{eps}``, ``{alpha}`` and ``{sym}`` in the line stand for a case's values).
    making: list[str] = field(default_factory=list)
    results: dict[str, list[list[Any]]] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)
    printed: int = 0
    first_print: str = ""
    timed_out: bool = False
    returncode: int | None = None
    stderr: str = ""
    seconds: float = 0.0
    #: Why the channel's lines cannot be believed (None: they can): the grader's failure.
    channel: str | None = None
    #: The grader failed in the box, in its own words (the worker did not start...).
    broken: str | None = None
    #: Why the later checks did not run (the module did not load again after a call that
    #: cost the worker).
    stopped: str | None = None
    #: The caller's last line came: the box ran to its end.
    done: bool = False
    #: The worker was ready: the student's code ran from here on.
    started: bool = False
    isolation: str = ""
    #: At the time limit: the CPU time the box's processes had had, and their waits for a
    #: CPU (None where /proc does not say).
    usage: processes.Usage | None = None

    def read(self, job: Job, lines: list[bytes]) -> None:
        """Check and record the caller's lines (:class:`~tttlab.usercode.protocol.Reader`);
        the first bad one stops the reading and says why in ``channel``."""
        reader = Reader(self, {f: len(cases) for f, cases, _ in job.phases}, job.names, job.timed)
        for number, line in enumerate(lines, 1):
            try:
                reader.take(json.loads(line))
            except (ValueError, RecursionError) as error:
                self.channel = f"line {number}: {str(error)[:120]}"
                return


def run_job(job: Job, boxed: bool) -> RawRun:
    """Run ``job`` in a box of its own (``boxed``) or with what is left without one, and
    return everything it reported that can be believed."""
    raw = RawRun()
    uid = box.run_as()
    with tempfile.TemporaryDirectory(prefix="ttt-check-") as folder, held_cpu() as cpu:
        grader, work = Path(folder) / "grader", Path(folder) / "work"
        shutil.copytree(_BOXSIDE, grader, ignore=shutil.ignore_patterns("__pycache__"))
        box.private_copy(job.path, work)
        nproc = BOX_PROCESSES + (box.processes_of(uid if uid is not None else os.getuid()))
        stage = str(box.BOX / "submission") if boxed else None
        (grader / "job.json").write_text(json.dumps(job.as_json(stage, nproc, cpu)))
        for path in (Path(folder), *grader.rglob("*"), grader, work, *work.rglob("*")):
            path.chmod(0o755 if path.is_dir() else 0o644)
        if uid is not None and not boxed:
            for path in (work, *work.rglob("*")):
                os.chown(path, uid, uid)
        job_path = str(box.BOX / "grader" / "job.json") if boxed else str(grader / "job.json")
        # The results channel is a pipe of its own, passed to the caller alone: not the box's
        # stdout, which bubblewrap's init keeps (and the worker could open as /proc/1/fd/1).
        results, channel = os.pipe()
        argv = box.command(grader, work, job_path, boxed, channel)
        memory = job.memory_mb * 2**20 + 2 * BOX_WRITABLE_BYTES
        cgroup = box.Cgroup.make(BOX_PROCESSES + 4, memory)
        gate, opened = os.pipe() if cgroup is not None else (subprocess.DEVNULL, -1)
        if cgroup is not None:
            argv = cgroup.held(argv)
        start = time.perf_counter()
        try:
            child = subprocess.Popen(
                argv,
                stdin=gate,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                cwd=work,
                env=box.child_environment(str(work)),
                start_new_session=True,
                user=uid,
                group=uid,
                extra_groups=[] if uid is not None else None,
                pass_fds=(channel,),
            )
        except BaseException:
            os.close(results)
            if cgroup is not None:
                cgroup.remove()
            raise
        finally:
            os.close(channel)
            if cgroup is not None:
                os.close(gate)
        if cgroup is not None:
            try:
                cgroup.join(child.pid)  # as root, before the box starts: then let it go on
                os.write(opened, b"go\n")
            except OSError as error:
                raw.broken = f"the box could not be put in its cgroup: {error}"
            finally:
                os.close(opened)
        pipes = Pipes(results, child.stderr, job.channel_bytes())

        def leftovers() -> None:  # the box is done: whatever it started ends now
            _stop(child)
            if cgroup is not None:
                cgroup.kill()

        try:
            raw.timed_out = _follow(child, pipes, start + job.time_limit, leftovers)
            if raw.timed_out:  # before the box is ended: what it had of the machine
                raw.usage = processes.usage(child.pid)
        finally:
            _stop(child)
            pipes.close()
            os.close(results)
            if child.stderr is not None:
                child.stderr.close()
            if cgroup is not None:
                cgroup.remove()
        raw.seconds = time.perf_counter() - start
        raw.returncode = child.returncode
    whole = bytes(pipes.channel).split(b"\n")[:-1]  # not a line cut by the kill
    raw.read(job, whole)
    if pipes.flooded and raw.channel is None:
        raw.channel = f"more than {job.channel_bytes():,} bytes of results"
    raw.stderr = pipes.stderr().strip()
    return raw


def _follow(
    child: subprocess.Popen[bytes], pipes: Pipes, deadline: float, leftovers: Callable[[], None]
) -> bool:
    """Read until the child is done and its pipes are closed (at most ``DRAIN_SECONDS``
    after it exits, whatever its descendants hold; ``leftovers`` ends them as soon as it
    exits), or until the deadline; whether the deadline came first."""
    exited: float | None = None
    while pipes.open:
        if ABANDON.is_set():
            raise KeyboardInterrupt
        now = time.perf_counter()
        if now >= deadline:
            return True
        if exited is None and child.poll() is not None:
            exited = now
            leftovers()
            pipes.drain_results()
        if exited is not None and now - exited > DRAIN_SECONDS:
            return False
        if pipes.flooded:
            return False
        pipes.read(min(0.1, deadline - now))
    try:
        child.wait(timeout=max(0.0, deadline - time.perf_counter()))
    except subprocess.TimeoutExpired:
        return True
    return False


def _stop(child: subprocess.Popen[bytes]) -> None:
    """End the child, every process below it (without a box, a process in a session of
    its own escapes a kill of the group), and its process group (in a box: the box, and
    everything in it)."""
    if child.poll() is None:
        processes.end_tree(child.pid)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)
    if child.poll() is None:
        with contextlib.suppress(OSError):
            child.kill()
    child.wait()
