"""The caller: the process in the box that owns the results channel (standard library only).

It starts the worker (:mod:`.worker`), asks it to import the student's code, then sends it
the job's calls and writes each outcome on the channel (a pipe the grader passed to it
alone). A check whose calls are limited and not timed has its questions sent up to
:data:`~.asking.AHEAD` ahead of their answers, each call's limit counted from the answer
before it; a timed call (minimax on the empty board) is asked alone, and its time measured
here, from sending the question to reading the answer. A call that runs past the per-call
limit, ends the worker, or answers out of the protocol costs the worker: the rest of that
check is skipped (the questions sent ahead end with the worker) and a new worker is started
for the next one.

The student's code never holds the channel: the worker is started without it, and this
process makes itself undumpable, so that the worker (the same user) can neither open its
descriptors through /proc nor trace it.

Nothing the student's code starts outlives its worker: this process is a subreaper, so a
process that leaves the worker's session (a daemon: ``setsid`` and a second fork) is
re-parented here, not to the machine's init, and every process left below this one is
killed when a worker ends and before this process exits (without a box, the box's PID
namespace does not end them).

Run as ``python -I -B __main__.py caller JOB.json`` (:mod:`tttlab.usercode.sandbox`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import signal
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from .asking import AHEAD, Gone, Worker
from .schema import (
    ANSWERED,
    CALLER_ONLY,
    MODULE,
    NOTE_CHARS,
    NOTES,
    STUBS,
    cut,
    describe,
    outcome_problem,
)

__all__ = ["main"]

#: Entries of the import's lists kept, and the characters of each.
LISTED, CHARS = 100, 200
#: How deeply an answer may nest (the deepest the worker writes is 4: a game_over answer's
#: garbage): a deeper one, which the grader's reader might not parse, is no answer.
DEPTH = 8


def _prctl(option: int, value: int) -> None:
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def _undumpable() -> None:
    """No core file, and no /proc/PID/fd or ptrace for processes of the same user."""
    _prctl(4, 0)  # PR_SET_DUMPABLE


def _subreaper() -> None:
    """Orphans below this process are re-parented to it (Linux 3.4), and ended here."""
    _prctl(36, 1)  # PR_SET_CHILD_SUBREAPER


def _children() -> list[int]:
    """This process's children (orphans re-parented here among them)."""
    pid = os.getpid()
    try:
        found = []
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as f:
                found += [int(p) for p in f.read().split()]
        return found
    except FileNotFoundError:  # a kernel without the children files: every process's parent
        pass
    except (OSError, ValueError):
        return []
    found = []
    for entry in os.listdir("/proc"):
        with (
            contextlib.suppress(OSError, ValueError, IndexError),
            open(f"/proc/{entry}/stat", "rb") as f,
        ):
            if int(f.read().rsplit(b")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def end_the_rest() -> None:
    """Kill every process left below this one and reap it, until none is left (no worker
    runs: none of them is waited for elsewhere). A process killed here leaves its own
    children to this one, killed in the next round."""
    for _ in range(10_000):
        children = _children()
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        try:
            if children:
                os.waitpid(-1, 0)  # one of those killed has ended
            elif os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.001)  # one just re-parented here, not yet listed
        except OSError:  # ChildProcessError: none is left
            return


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
            return {"broken": cut(f"the box's worker could not be started: {error}", CHARS)}
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
            mark["skipped"] = _texts(answer.get("skipped"), CHARS, cut)
            stubbed = [m for m in _texts(answer.get("stubbed")) if MODULE.fullmatch(m)]
            mark["stubbed"] = stubbed[:STUBS]
            constants = answer.get("constants")
            if constants is not None:
                mark["constants"] = cut(str(constants), CHARS)
            notes = _texts(answer.get("notes"), NOTE_CHARS, cut)
            if notes:
                mark["notes"] = notes[:NOTES]
            problem = answer.get("problem")
            if type(problem) is str and problem:
                mark["problem"] = cut(problem, NOTE_CHARS)
            making = _texts(answer.get("making"), NOTE_CHARS, cut)
            if len(making) == 3:
                mark["making"] = making
        return mark

    def _count(self, answer: dict[str, Any]) -> None:
        printed, first = answer.get("p"), answer.get("fp")
        if type(printed) is int and self.printed[1] <= printed < 2**53:
            self.printed[1] = printed
        if type(first) is str and first and not self.first_print:
            self.first_print = cut(first, 80)

    def call(self, function: str, case: Any, seconds: float | None, allowance: int) -> list[Any]:
        """One call's OUTCOME; the worker is ended when the call cost it."""
        assert self.worker is not None
        try:
            answer = self.worker.ask({"f": function, "c": case}, seconds, allowance)
        except Gone as gone:
            self.end_worker()
            return gone.outcome
        return self._outcome(answer)

    def ahead(
        self, function: str, cases: list[Any], seconds: float, allowance: int
    ) -> Iterator[list[Any]]:
        """Each call's OUTCOME, in order, with up to AHEAD questions sent ahead of their
        answers (each call within ``seconds`` of its own time once the answer before it is
        read); the outcomes end with the first that cost the worker."""
        worker = self.worker
        assert worker is not None
        due: deque[str] = deque()
        sent = 0  # the cases sent so far
        for index, case in enumerate(cases):
            while sent < len(cases) and len(due) < AHEAD:
                nonce = worker.send_ahead({"f": function, "c": cases[sent]})
                if nonce is None:
                    break
                due.append(nonce)
                sent += 1
            if due:
                try:
                    outcome = self._outcome(worker.answer_to(due.popleft(), seconds, allowance))
                except Gone as gone:
                    self.end_worker()
                    outcome = gone.outcome
            else:  # none could go ahead (no room, or too long): this one alone, as call does
                outcome = self.call(function, case, seconds, allowance)
                sent = index + 1
            yield outcome
            if outcome[0] in CALLER_ONLY:
                return

    def _outcome(self, answer: Any) -> list[Any]:
        """An answer's OUTCOME, as the channel may carry it; the worker is ended when the call
        cost it."""
        self._count(answer)
        outcome = answer.get("o")
        if "internal" in answer:  # said after the student's code ran: its own to say
            outcome = ["b", "the worker said it failed"]
        elif outcome_problem(outcome, ANSWERED) is not None or _deeper(outcome, DEPTH):
            outcome = ["b", "an answer in no known form"]
        if outcome[0] in CALLER_ONLY:
            self.end_worker()
        return list(outcome)  # no longer than its answer's line: within the allowance

    def end_worker(self) -> None:
        """End the worker, if one runs, and whatever the student's code left behind (a new
        worker is started when a check needs it)."""
        if self.worker is not None:
            self.worker.end()
            self.worker = None
        end_the_rest()

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
        if "problem" in mark:  # the shape cannot take the code: no check can run
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
                    emit({"stopped": cut(f"the module did not load again: {why}", CHARS)})
                    return
            emit({"phase": function})
            seconds = None if function in unlimited else float(job["call_seconds"])
            if seconds is not None and function not in timed:
                for outcome in self.ahead(function, cases, seconds, allowance):
                    emit(outcome, now=False)
            else:
                self._one_by_one(function, cases, seconds, allowance, function in timed)
            end = {"end": function, "printed": sum(self.printed)}
            emit({**end, "first_print": self.first_print} if self.first_print else end)

    def _one_by_one(
        self, function: str, cases: list[Any], seconds: float | None, allowance: int, timed: bool
    ) -> None:
        """A phase asked a call at a time (timed: each outcome with the seconds it took, from
        sending the question to reading the answer; unlimited: each written at once)."""
        for case in cases:
            start = time.monotonic()
            outcome = self.call(function, case, seconds, allowance)
            elapsed = time.monotonic() - start
            if timed:
                outcome.append(round(elapsed, 6) if math.isfinite(elapsed) else None)
            self.channel.emit(outcome, now=seconds is None)
            if outcome[0] in CALLER_ONLY:
                return

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
        if "problem" in mark:
            return str(mark["problem"])
        return None


def _deeper(value: Any, depth: int) -> bool:
    """Whether ``value`` nests lists or dicts more than ``depth`` deep."""
    if type(value) not in (list, dict):
        return False
    if depth == 0:
        return True
    items = value.values() if type(value) is dict else value
    return any(_deeper(item, depth - 1) for item in items)


def _texts(
    value: Any, chars: int = CHARS, shorten: Callable[[str, int], str] = lambda v, n: v[:n]
) -> list[str]:
    """The strings of the list ``value``, each in ``chars`` (names are cut; texts, ``cut``
    at a word)."""
    if type(value) is not list:
        return []
    return [shorten(v, chars) for v in value[:LISTED] if type(v) is str]


def _one_cpu(cpu: Any) -> None:
    """Run on the one CPU ``cpu`` (the worker inherits it): a call is a question and an
    answer between two processes, and handing the turn over on one CPU costs a context
    switch where waking the other process on another CPU costs several times more."""
    if type(cpu) is int and hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError, ValueError):
            os.sched_setaffinity(0, {cpu})


def main(argv: list[str]) -> int:
    _undumpable()
    _subreaper()
    with open(argv[0]) as f:
        job = json.load(f)
    _one_cpu(job.get("cpu"))
    if job.get("stage"):  # the submission's files, into the box's writable working folder
        shutil.copytree(job["stage"], os.getcwd(), dirs_exist_ok=True)
    channel = Channel(int(argv[1]))
    caller = Caller(job, argv[0], channel)
    try:
        caller.run()
    except Exception as error:  # the grader's own failure: said as such, never the student's
        failed = f"the box's caller failed: {type(error).__name__}: {error}"
        channel.emit({"broken": cut(failed, CHARS)})
    finally:
        caller.end_worker()
    channel.emit({"done": True})
    return 0
