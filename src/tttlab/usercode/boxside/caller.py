"""The caller: the process in the box that owns the results channel (standard library only).

It starts the worker (:mod:`.worker`), asks it to import the student's code, then sends it
the job's calls one at a time and writes each outcome on the channel (its stdout) with the
time it measured itself, from sending the question to reading the answer. A call that runs
past the per-call limit, ends the worker, or answers out of the protocol costs the worker:
the rest of that check is skipped and a new worker is started for the next one.

The student's code never holds the channel: the worker is started without it, and this
process makes itself undumpable, so that the worker (the same user) can neither open its
descriptors through /proc nor trace it.

Run as ``python -I -B __main__.py caller JOB.json`` (:mod:`tttlab.usercode.sandbox`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from typing import Any

from .schema import ANSWERED, CALLER_ONLY, MODULE, STUBS, describe, outcome_problem

__all__ = ["main"]

#: Seconds the worker has to say it is ready (a Python starting in a box, on a busy machine).
READY_SECONDS = 60.0
#: A call's limit counts its worker's CPU time: a call that ran out of time on the clock
#: without having had the CPU time of its limit (a busy machine, a process starved) waits
#: on, up to this many times its limit on the clock; one that slept or waited that long
#: has not returned within its limit.
STARVED_TIMES = 10
#: Clock ticks a second, the unit of /proc's CPU times.
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: Entries of the import's lists kept, and the characters of each.
LISTED, CHARS = 100, 200
#: How deeply an answer may nest (the deepest the worker writes is 4: a game_over answer's
#: garbage): a deeper one, which the grader's reader might not parse, is no answer.
DEPTH = 8


def _undumpable() -> None:
    """No core file, and no /proc/PID/fd or ptrace for processes of the same user."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4


class Gone(Exception):
    """The worker did not answer: ``outcome`` says how (``["t"]``, ``["k", how]``,
    ``["b", why]``)."""

    def __init__(self, outcome: list[Any]) -> None:
        super().__init__(outcome)
        self.outcome = outcome


class Worker:
    """One worker process and its two pipes, asked one question at a time."""

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

    def ready(self) -> str | None:
        """None once the worker says it is ready; else why it is not (the grader's failure:
        none of the student's code has run yet)."""
        try:
            line = self._line(time.monotonic() + READY_SECONDS, 4096)
        except Gone as gone:
            how = gone.outcome[1] if len(gone.outcome) > 1 else "it did not say it was ready"
            return f"the box's worker did not start: {how}"
        if line != b'{"ready":true}':
            return "the box's worker did not start: it said something else first"
        return None

    def ask(self, question: dict[str, Any], seconds: float | None, allowance: int) -> Any:
        """The answer to ``question`` (a dict with the question's own number as ``n``), or
        :class:`Gone`; lines that answer another question are dropped."""
        start, cpu = time.monotonic(), self.cpu()
        deadline = None if seconds is None else start + seconds
        nonce = os.urandom(8).hex()
        question["n"] = nonce
        self._send(json.dumps(question).encode() + b"\n", deadline)
        while True:
            try:
                line = self._line(deadline, allowance)
            except Gone as gone:
                later = self._starved(gone, start, seconds, cpu)
                if later is None:
                    raise
                deadline = later
                continue
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
        try:
            with open(f"/proc/{self.process.pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / TICKS
        except (OSError, IndexError, ValueError):
            return None

    def _starved(
        self, gone: Gone, start: float, seconds: float | None, cpu: float | None
    ) -> float | None:
        """A later deadline when the call ran out of time without having had the CPU time
        the limit gives it (a busy machine's delay is not the student's), up to
        :data:`STARVED_TIMES` the limit in all; else None: the time was the call's."""
        now = self.cpu()
        if gone.outcome != ["t"] or seconds is None or cpu is None or now is None:
            return None
        left = seconds - (now - cpu)
        cap = start + seconds * STARVED_TIMES
        if left < 0.05 or time.monotonic() >= cap:
            return None
        return min(cap, time.monotonic() + left)

    def _send(self, data: bytes, deadline: float | None) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.to, view) :]
                continue
            except BlockingIOError:
                pass
            except OSError:
                raise Gone(["k", self._ended()]) from None
            self._wait(self.writing, deadline)

    def _line(self, deadline: float | None, most: int) -> bytes:
        while b"\n" not in self.buffer:
            if len(self.buffer) > most:
                raise Gone(["b", f"an answer of more than {most:,} bytes"])
            self._wait(self.reading, deadline)
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

    def _wait(self, poll: select.poll, deadline: float | None) -> None:
        """Until the pipe is ready (or has closed); :class:`Gone` at the deadline, or as
        soon as the worker has ended (a process it started may still hold its pipe)."""
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if poll.poll(100 if left is None else max(0, min(100, int(left * 1000) + 1))):
                return
            if self.process.poll() is not None:
                raise Gone(["k", self._ended()])
            if left is not None and left <= 0:
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
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()


class Channel:
    """The results channel: the descriptor ``fd`` that the grader passed to this process
    alone (its stdout and stdin are pointed at /dev/null). Lines of a phase of quick calls
    are flushed at most 20 ms late."""

    def __init__(self, fd: int) -> None:
        self.out = os.fdopen(fd, "wb", buffering=1 << 16)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 1)
        os.dup2(null, 0)
        self.flushed = time.monotonic()

    def emit(self, item: Any, now: bool = True) -> None:
        # a student's value table may hold NaN: the grader reads it, and says so
        line = json.dumps(item, separators=(",", ":"), ensure_ascii=False)
        self.out.write(line.encode("utf-8", "surrogatepass") + b"\n")
        if now or time.monotonic() - self.flushed > 0.02:
            self.out.flush()
            self.flushed = time.monotonic()


class Caller:
    def __init__(self, job: dict[str, Any], job_path: str, channel: Channel) -> None:
        self.job, self.job_path, self.channel = job, job_path, channel
        self.worker: Worker | None = None
        self.first = True
        self.printed = [0, 0]  # the counts of the workers before this one, and this one's
        self.first_print = ""

    def start(self) -> dict[str, Any]:
        """A new worker, asked to import the student's code: the import's mark, or
        ``{"broken": why}``."""
        self.printed = [sum(self.printed), 0]
        try:
            worker = self.worker = Worker(self.job_path)
        except OSError as error:  # no process to be had: the machine's, or a fork bomb's
            return {"broken": f"the box's worker could not be started: {error}"[:CHARS]}
        broken = worker.ready()
        if broken is not None:
            return {"broken": broken}
        if self.first:  # from here on, the student's code runs
            self.channel.emit({"started": True})
            self.first = False
        try:
            answer = worker.ask({"import": True}, self.job["import_seconds"], 1 << 20)
        except Gone as gone:
            return {"import": gone.outcome, "printed": sum(self.printed)}
        if "internal" in answer:  # said after the student's code ran: its own to say
            return {"import": ["b", "the worker said it failed"], "printed": sum(self.printed)}
        self._count(answer)
        outcome = answer.get("o")
        if outcome != ["v"] and outcome_problem(outcome, ("e", "x", "i")) is not None:
            outcome = ["b", "an answer to the import in no known form"]
        mark: dict[str, Any] = {"import": outcome, "printed": sum(self.printed)}
        if self.first_print:
            mark["first_print"] = self.first_print
        if outcome == ["v"]:
            names = set(self.job["names"])
            mark["missing"] = [n for n in _texts(answer.get("missing")) if n in names]
            mark["skipped"] = _texts(answer.get("skipped"))
            stubbed = [m for m in _texts(answer.get("stubbed")) if MODULE.fullmatch(m)]
            mark["stubbed"] = stubbed[:STUBS]
            constants = answer.get("constants")
            if constants is not None:
                mark["constants"] = str(constants)[:CHARS]
        return mark

    def _count(self, answer: dict[str, Any]) -> None:
        printed, first = answer.get("p"), answer.get("fp")
        if type(printed) is int and self.printed[1] <= printed < 2**53:
            self.printed[1] = printed
        if type(first) is str and first and not self.first_print:
            self.first_print = first[:80]

    def call(self, function: str, case: Any, seconds: float | None, allowance: int) -> list[Any]:
        """One call's OUTCOME; the worker is ended when the call cost it."""
        assert self.worker is not None
        try:
            answer = self.worker.ask({"f": function, "c": case}, seconds, allowance)
        except Gone as gone:
            self._end_worker()
            return gone.outcome
        self._count(answer)
        outcome = answer.get("o")
        if "internal" in answer:  # said after the student's code ran: its own to say
            outcome = ["b", "the worker said it failed"]
        elif outcome_problem(outcome, ANSWERED) is not None or _deeper(outcome, DEPTH):
            outcome = ["b", "an answer in no known form"]
        if outcome[0] in CALLER_ONLY:
            self._end_worker()
        return list(outcome)  # no longer than its answer's line: within the allowance

    def _end_worker(self) -> None:
        if self.worker is not None:
            self.worker.end()
            self.worker = None

    def run(self) -> None:
        job, emit = self.job, self.channel.emit
        mark = self.start()
        constants = mark.pop("constants", None)
        emit(mark)
        if "import" not in mark or mark["import"] != ["v"]:
            return
        if constants is not None:
            emit({"constants": constants})
            return
        missing = set(mark["missing"])
        unlimited, timed = set(job["unlimited"]), set(job["timed"])
        phases = zip(job["phases"], job["answer_bytes"], strict=True)
        for (function, cases, needs), allowance in phases:
            if any(n in missing for n in needs):
                continue
            if self.worker is None:
                why = self._again()
                if why is not None:
                    emit({"stopped": f"the module did not load again: {why}"[:CHARS]})
                    return
            emit({"phase": function})
            seconds = None if function in unlimited else float(job["call_seconds"])
            for case in cases:
                start = time.monotonic()
                outcome = self.call(function, case, seconds, allowance)
                elapsed = time.monotonic() - start
                if function in timed:
                    outcome.append(round(elapsed, 6) if math.isfinite(elapsed) else None)
                emit(outcome, now=function in unlimited)
                if outcome[0] in CALLER_ONLY:
                    break
            end = {"end": function, "printed": sum(self.printed)}
            emit({**end, "first_print": self.first_print} if self.first_print else end)

    def _again(self) -> str | None:
        """Start a new worker after a call that cost the last one; None when it loaded the
        module as the first did, else why not."""
        mark = self.start()
        if "broken" in mark:
            return str(mark["broken"])
        if mark["import"] != ["v"]:
            return describe(mark["import"], float(self.job["import_seconds"]))
        if "constants" in mark:
            return f"X, O and EMPTY cannot be compared: {mark['constants']}"
        return None

    def end(self) -> None:
        if self.worker is not None:
            self.worker.end()


def _deeper(value: Any, depth: int) -> bool:
    """Whether ``value`` nests lists or dicts more than ``depth`` deep."""
    if type(value) not in (list, dict):
        return False
    if depth == 0:
        return True
    items = value.values() if type(value) is dict else value
    return any(_deeper(item, depth - 1) for item in items)


def _texts(value: Any) -> list[str]:
    if type(value) is not list:
        return []
    return [v[:CHARS] for v in value[:LISTED] if type(v) is str]


def main(argv: list[str]) -> int:
    _undumpable()
    with open(argv[0]) as f:
        job = json.load(f)
    if job.get("stage"):  # the submission's files, into the box's writable working folder
        shutil.copytree(job["stage"], os.getcwd(), dirs_exist_ok=True)
    channel = Channel(int(argv[1]))
    caller = Caller(job, argv[0], channel)
    try:
        caller.run()
    except Exception as error:  # the grader's own failure: said as such, never the student's
        failed = f"the box's caller failed: {type(error).__name__}: {error}"
        channel.emit({"broken": failed[:CHARS]})
    finally:
        caller.end()
    channel.emit({"done": True})
    return 0
