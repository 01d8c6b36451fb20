"""A limit's own time (:mod:`tttlab.usercode.boxside.clock`): the clock, less the time the
processes waited for a CPU, as the kernel counts it; unknown where the kernel does not say."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tttlab.usercode.boxside import clock
from tttlab.usercode.boxside.clock import OwnClock, Waits

SCHEDSTAT = Path("/proc/self/schedstat").exists()


class Moved:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


class Said(Waits):
    """Waits as the test says them."""

    def __init__(self, seconds: float | None) -> None:
        self.fds = [] if seconds is None else [0]
        self.said = seconds

    def seconds(self) -> float | None:
        return self.said


def test_own_time_is_the_clock_less_the_waits_for_a_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    moved = Moved()
    monkeypatch.setattr(clock.time, "monotonic", moved)
    waits = Said(2.0)
    own = OwnClock(waits)
    moved.now += 3.0
    waits.said = 4.5
    assert own.own() == pytest.approx(0.5)  # 3 s on the clock, 2.5 s of them waiting
    waits.said = None  # a process ended: the kernel no longer says
    assert own.own() is None
    assert OwnClock(Said(None)).own() is None


@pytest.mark.skipif(not SCHEDSTAT, reason="no scheduler statistics")
def test_the_waits_of_this_process_and_of_a_child_are_read_and_grow() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        waits = Waits(child.pid, "self")
        assert len(waits.fds) == 2
        first = waits.seconds()
        assert first is not None
        assert first >= 0
        second = waits.seconds()
        assert second is not None
        assert second >= first
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait()
    waits.close()
    assert waits.seconds() is None


def test_a_process_that_is_not_there_has_no_waits() -> None:
    waits = Waits(2**22 + 17, "self")  # past the largest process id
    assert waits.fds == []
    assert waits.seconds() is None
