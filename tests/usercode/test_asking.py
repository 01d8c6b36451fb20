"""The worker seen from the caller (:mod:`tttlab.usercode.boxside.asking`): the clock of a
call is the caller's, and its limit counts the call's own time (the clock, less the time the
worker and the caller waited for a CPU), so that a busy machine's delay is never the
student's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tttlab.usercode import sandbox
from tttlab.usercode.boxside import asking, clock
from tttlab.usercode.boxside.asking import STARVED_TIMES, Gone, Limit, Worker


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeWaits:
    def __init__(self, seconds: float | None) -> None:
        self.waited = seconds
        self.fds = [] if seconds is None else [0]

    def seconds(self) -> float | None:
        return self.waited


class FakeWorker:
    def __init__(self, waits: FakeWaits, cpu: float | None) -> None:
        self.waits = waits
        self.used = cpu

    def cpu(self) -> float | None:
        return self.used


@pytest.fixture
def now(monkeypatch: pytest.MonkeyPatch) -> Clock:
    moved = Clock()
    monkeypatch.setattr(asking.time, "monotonic", moved)
    monkeypatch.setattr(clock.time, "monotonic", moved)
    return moved


def test_a_call_that_waited_for_a_cpu_is_given_its_own_time_however_long(now: Clock) -> None:
    waits = FakeWaits(5.0)
    worker = FakeWorker(waits, 0.0)
    limit = Limit(worker, 1.0)  # type: ignore[arg-type]
    now.now += 1.0
    waits.waited = 5.9  # 0.9 s of the second waiting for a CPU: 0.1 s its own
    assert limit.later()
    assert limit.deadline == pytest.approx(now.now + 0.9)
    now.now += 100.0  # far past ten times the limit, waiting all along: still not its own
    waits.waited += 99.95
    assert limit.later()
    assert limit.deadline == pytest.approx(now.now + 0.85)
    now.now += 0.85
    assert not limit.later()  # its own second is spent


def test_a_call_that_sleeps_spends_its_own_time(now: Clock) -> None:
    waits = FakeWaits(0.0)
    limit = Limit(FakeWorker(waits, 0.0), 1.0)  # type: ignore[arg-type]
    now.now += 1.0  # no wait for a CPU: the second was the call's, running or sleeping
    assert not limit.later()


def test_without_scheduler_statistics_the_limit_counts_cpu_time_up_to_a_cap(now: Clock) -> None:
    worker = FakeWorker(FakeWaits(None), 0.0)
    limit = Limit(worker, 1.0)  # type: ignore[arg-type]
    now.now += 1.0
    worker.used = 0.1  # had 0.1 s of its 1 s of CPU time
    assert limit.later()
    assert limit.deadline == pytest.approx(now.now + 0.9)
    worker.used = 0.99  # had (nearly) all of it
    assert not limit.later()
    worker.used = 0.1
    now.now = limit.start + STARVED_TIMES  # starved, but the clock is at the cap
    assert not limit.later()
    assert not Limit(FakeWorker(FakeWaits(None), None), 1.0).later()  # type: ignore[arg-type]


#: A cs50 module whose ``winner`` runs for a given CPU time (its process's), then answers.
BURNS = """
import time
X, O, EMPTY = "X", "O", None


def winner(board):
    start = time.process_time()
    while time.process_time() - start < {seconds}:
        pass
    return None
"""


#: Processes that keep one CPU busy, each in a session of its own (the kernel shares a CPU
#: between sessions first, whatever their priorities).
SPINNERS = 8


@pytest.fixture
def spinners() -> Iterator[int]:
    """:data:`SPINNERS` processes pinned to one CPU, kept busy: the CPU."""
    cpu = min(os.sched_getaffinity(0))
    code = f"import os\nos.sched_setaffinity(0, {{{cpu}}})\nwhile True: pass"
    started = [
        subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
        for _ in range(SPINNERS)
    ]
    try:
        yield cpu
    finally:
        for process in started:
            process.kill()
            process.wait()


def _worker(tmp_path: Path, burn: float, monkeypatch: pytest.MonkeyPatch) -> Worker:
    work = tmp_path / "work"
    work.mkdir()
    (work / "tictactoe.py").write_text(BURNS.format(seconds=burn))
    job = sandbox.Job(
        Path("tictactoe.py"), "cs50", "import", ("tictactoe.py",), (), [], (), (), 60, 1024
    )
    (tmp_path / "job.json").write_text(json.dumps(job.as_json(None, 64)))
    monkeypatch.chdir(work)  # the worker loads the module from its working folder
    return Worker(str(tmp_path / "job.json"))


@pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="no scheduler statistics")
def test_a_call_starved_of_the_cpu_by_the_machine_is_not_stopped_before_its_own_time(
    tmp_path: Path, spinners: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker shares its one CPU with the spinners (a ninth of it, at most): 0.02 s of
    CPU time takes it more than its 0.1 s limit on the clock, and it still answers, since the
    machine's delay is not its own time."""
    worker = _worker(tmp_path, 0.02, monkeypatch)
    try:
        assert worker.ready() is None
        assert worker.ask({"import": True}, 30, 1 << 20)["o"] == ["v"]
        os.sched_setaffinity(worker.process.pid, {spinners})
        answer = worker.ask({"f": "winner", "c": "." * 9}, 0.1, 4096)
        assert answer["o"] == ["v", "."]
    finally:
        worker.end()


@pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="no scheduler statistics")
def test_a_call_that_runs_past_its_own_time_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker = _worker(tmp_path, 3600, monkeypatch)
    try:
        assert worker.ready() is None
        assert worker.ask({"import": True}, 30, 1 << 20)["o"] == ["v"]
        with pytest.raises(Gone) as gone:
            worker.ask({"f": "winner", "c": "." * 9}, 0.2, 4096)
        assert gone.value.outcome == ["t"]
    finally:
        worker.end()


def test_a_question_sent_ahead_never_waits_for_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the worker is busy in a call, questions sent ahead fill its pipe; the one that
    finds no room is not sent (None), at once, never waited for, so that the caller never
    blocks on one pipe while the worker blocks on the other; nor is a question too long to
    be written whole. The call due is still stopped at its own limit."""
    worker = _worker(tmp_path, 3600, monkeypatch)
    try:
        assert worker.ready() is None
        assert worker.ask({"import": True}, 30, 1 << 20)["o"] == ["v"]
        assert worker.send_ahead({"f": "winner", "c": "." * asking.ATOMIC}) is None
        nonces = []
        for _ in range(100_000):
            nonce = worker.send_ahead({"f": "winner", "c": "." * 9})
            if nonce is None:
                break
            nonces.append(nonce)
        assert 1 < len(nonces) < 100_000
        with pytest.raises(Gone) as gone:
            worker.answer_to(nonces[0], 0.2, 4096)
        assert gone.value.outcome == ["t"]
    finally:
        worker.end()
