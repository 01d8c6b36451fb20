"""A box's processes seen through /proc (:mod:`tttlab.usercode.processes`): the tree below a
process, its CPU time (its ended children's included) and its waits for a CPU, and ending
the whole tree, a daemon that left its session included where a subreaper keeps it below."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tttlab.usercode.processes import end_tree, tree, usage

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="no /proc")

#: A subreaper that starts a daemon (a second fork in a session of its own) and a child
#: that burns 0.2 s of CPU time and ends (waited for), then says it is ready and waits.
FAMILY = """
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
named, said = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        ctypes.CDLL(None).prctl(15, b"tttprocdaemon", 0, 0, 0)
        os.write(said, b"d")
        time.sleep(120)
    os._exit(0)
os.read(named, 1)  # the daemon has its name
burner = os.fork()
if burner == 0:
    start = time.process_time()
    while time.process_time() - start < 0.2:
        pass
    os._exit(0)
os.waitpid(burner, 0)
print("ready", flush=True)
sys.stdin.read()
"""


def _named(name: str) -> list[int]:
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            stat = (proc / "stat").read_text()
        except OSError:
            continue
        if f"({name})" in stat and stat.rsplit(")", 1)[1].split()[0] != "Z":
            found.append(int(proc.name))
    return found


def test_a_tree_its_usage_and_its_end() -> None:
    family = subprocess.Popen(
        [sys.executable, "-c", FAMILY], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert family.stdout is not None
        assert family.stdout.readline() == b"ready\n"
        daemons = _named("tttprocdaemon")
        assert daemons, "the daemon did not start"
        below = tree(family.pid)
        assert below[0] == family.pid
        assert set(daemons) <= set(below[1:])  # re-parented to the subreaper, not to init
        used = usage(family.pid)
        assert used is not None
        assert used.cpu >= 0.15  # the burner's 0.2 s, counted once it was waited for
        if Path("/proc/self/schedstat").exists():
            assert used.waited is not None
            assert used.waited >= 0
        end_tree(family.pid)
        assert family.wait(timeout=60) == -9
        deadline = time.monotonic() + 30  # a killed process has gone within seconds
        while _named("tttprocdaemon") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _named("tttprocdaemon") == []
    finally:
        family.kill()
        family.wait()
        for pid in _named("tttprocdaemon"):  # only if the test failed: this test's own
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def test_a_process_that_is_gone_has_no_usage_and_no_tree_below() -> None:
    gone = 2**22 + 17  # past the largest process id
    assert usage(gone) is None
    assert tree(gone) == [gone]
    end_tree(gone)  # nothing to end: no error
