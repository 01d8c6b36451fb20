"""The worker seen from the caller (:mod:`tttlab.usercode.boxside.asking`): the clock of a
call is the caller's, counted in the worker's CPU time, so that a busy machine's delay is not
the student's."""

from __future__ import annotations

import time

import pytest

from tttlab.usercode.boxside.asking import STARVED_TIMES, Gone, Worker


def test_a_call_starved_of_the_cpu_waits_for_its_cpu_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy machine's delay is not the student's: a call whose clock ran out before its
    worker had the CPU time of its limit is given the rest, up to ten times the limit."""
    worker = Worker.__new__(Worker)
    used = [0.0]
    monkeypatch.setattr(Worker, "cpu", lambda self: used[0])
    now = time.monotonic()
    late = Gone(["t"])
    used[0] = 0.1  # had 0.1 s of its 1 s
    later = worker._starved(late, now - 1.0, 1.0, 0.0)
    assert later is not None
    assert now + 0.8 < later <= now + 1.0
    used[0] = 0.99  # had (nearly) all of it: its own time
    assert worker._starved(late, now - 1.0, 1.0, 0.0) is None
    used[0] = 0.1  # starved, but the clock is past ten times the limit
    assert worker._starved(late, now - STARVED_TIMES - 0.1, 1.0, 0.0) is None
    assert worker._starved(Gone(["k", "exit code 1"]), now - 1.0, 1.0, 0.0) is None
    assert worker._starved(late, now - 1.0, 1.0, None) is None  # no /proc: the clock rules
