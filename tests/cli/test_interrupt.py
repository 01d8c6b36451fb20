"""Ctrl-C (SIGINT) and SIGTERM during ``ttt train`` stop cleanly and keep what was learned."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.helpers import start_ttt
from tttlab.io import load_agent_file


def _start(out: Path, **env: str) -> subprocess.Popen[str]:
    proc: subprocess.Popen[str] = start_ttt(
        "train", "q", "--episodes", "2000000000", "--seed", "0", "--out", out, env=env
    )
    return proc


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time ``pid`` has had (None once it has ended, or without /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _signal_when(proc: subprocess.Popen[str], signum: int, ready: Callable[[], bool]) -> str:
    """Send ``signum`` once ``ready()`` says so (or ``proc`` has ended, or two minutes have
    passed); what ``proc`` wrote on stderr."""
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and not ready():
            time.sleep(0.002)
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()
    return stderr


def _executed(pid: int) -> bool:
    """Whether ``pid`` runs ``ttt`` now (its exec done), or has ended."""
    try:
        return b"-m\0tttlab\0" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True


@functools.cache
def _python_start() -> float:
    """The CPU seconds this environment's Python takes to start and load ``runpy`` (which
    ``python -m`` runs first): before then no handler of tttlab's can be, and a Ctrl-C is
    Python's own ("Could not import runpy module", exit 1)."""
    source = "import os, runpy; t = os.times(); print(t.user + t.system)"
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, check=True, timeout=60
    )
    return float(done.stdout)


def _stop(proc: subprocess.Popen[str], signum: int, after: float) -> str:
    """Send ``signum`` once ``proc`` has had ``after`` seconds of CPU time past Python's own
    start: the same moment of tttlab's start-up on a quiet machine and on a busy one, and on
    a slow one (on the clock, a busy machine's Ctrl-C landed before Python had loaded
    ``runpy``; at 0.1 s of CPU time, so did a slow machine's)."""
    if not Path(f"/proc/{proc.pid}/stat").exists():  # no /proc: the clock, then
        time.sleep(after)
    # counted from the exec: the forked child's CPU time before it (the copy of a big test
    # process, the preexec function) is the test's, not the command's
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _executed(proc.pid):
        time.sleep(0.001)
    after += (_cpu_seconds(proc.pid) or 0.0) + _python_start()

    def used() -> bool:
        seconds = _cpu_seconds(proc.pid)
        return seconds is None or seconds >= after

    return _signal_when(proc, signum, used)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signal_saves_the_agent_so_far(tmp_path: Path, signum: int) -> None:
    out, events = tmp_path / "long.npz", tmp_path / "events.jsonl"
    proc = start_ttt(
        *("train", "q", "--episodes", "2000000000", "--seed", "0", "--out", out),
        *("--events", events),
    )
    # once it trains (past start-up and any compile, however busy the machine)
    stderr = _signal_when(
        proc, signum, lambda: events.exists() and '"progress"' in events.read_text()
    )
    assert "Traceback" not in stderr
    assert "Interrupted after" in stderr
    agent = load_agent_file(out)
    assert 0 < agent.meta["episodes"] < 2_000_000_000


def test_signal_during_start_up_is_clean(tmp_path: Path) -> None:
    out = tmp_path / "early.npz"
    proc = _start(out)
    stderr = _stop(proc, signal.SIGINT, after=0.3)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    if out.exists():  # the signal came after the handler was in place: saved cleanly
        assert load_agent_file(out).meta["episodes"] > 0


# Four moments here, in the command's CPU time; experiments/stress_interrupt.py sends 120
# (40 moments, 3 times each).
@pytest.mark.parametrize("after", [0.1, 0.25, 0.4, 0.7])
def test_ctrl_c_at_any_moment_of_start_up_exits_130(tmp_path: Path, after: float) -> None:
    """Wherever Ctrl-C lands (imports, numba loading its kernels through llvmlite's ctypes
    callbacks, scipy's import inside numba's first compile), the command stops with 130."""
    proc = _start(tmp_path / "early.npz", TTTLAB_CACHE_DIR=str(tmp_path / "cache"))
    stderr = _stop(proc, signal.SIGINT, after=after)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "Exception ignored" not in stderr


def _wait(seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.fixture
def raising(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command that has asked for KeyboardInterrupt (tttlab._signals.raise_interrupts)."""
    monkeypatch.setattr("tttlab._signals._raising", True)


def test_before_a_command_asks_for_interrupts_ctrl_c_ends_the_process_wherever_it_lands() -> None:
    """Start-up: nothing to save yet, so the handler ends the process itself with 130, even
    inside a callback whose exceptions Python drops (the Ctrl-C that was lost in make test)."""
    source = (
        "import signal, sys\n"
        "from tttlab._signals import _handler\n"
        "namespace = {'handler': _handler, 'signal': signal, 'sys': sys}\n"
        "code = 'def cb():\\n    handler(signal.SIGINT, sys._getframe())\\n'\n"
        "exec(compile(code, '<frozen importlib._bootstrap>', 'exec'), namespace)\n"
        "namespace['cb']()\n"
        "print('trained on')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 130
    assert done.stderr == "ttt: interrupted\n"
    assert done.stdout == ""


@pytest.mark.usefixtures("raising")
def test_ctrl_c_inside_a_callback_whose_errors_python_drops_comes_again_from_outside() -> None:
    """A Ctrl-C that landed in the import system's module-lock weakref callback was printed
    as "Exception ignored in: <function _get_module_lock.<locals>.cb>" and lost: the command
    trained on (the start-up test above hung once). The handler asks again from outside."""
    from tttlab._signals import _handler

    namespace = {"handler": _handler, "signal": signal, "sys": sys}
    source = "def cb():\n    handler(signal.SIGINT, sys._getframe())\n"
    exec(compile(source, "<frozen importlib._bootstrap>", "exec"), namespace)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        try:
            namespace["cb"]()
        except KeyboardInterrupt:
            pytest.fail("raised inside a callback whose exceptions Python drops")
        with pytest.raises(KeyboardInterrupt):  # ... it comes again, from outside
            _wait(5.0)
        with pytest.raises(KeyboardInterrupt):  # anywhere else, at once
            _handler(signal.SIGINT, sys._getframe())
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("raising")
def test_ctrl_c_while_a_class_sets_up_its_descriptors_comes_again_outside() -> None:
    """Seen once in make test: Ctrl-C landed in ``cached_property.__set_name__`` while numba
    created a class, and Python 3.11 turned it into "RuntimeError: Error calling
    __set_name__" (an internal error, exit 1). The handler asks again once the class exists."""
    from tttlab._signals import _handler

    class Descriptor:
        def __set_name__(self, owner: type, name: str) -> None:
            _handler(signal.SIGINT, sys._getframe())

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        try:
            type("Owner", (), {"attribute": Descriptor()})
        except (KeyboardInterrupt, RuntimeError):
            pytest.fail("raised inside __set_name__")
        with pytest.raises(KeyboardInterrupt):  # ... it comes again, from outside
            _wait(5.0)
    finally:
        signal.signal(signal.SIGINT, previous)
