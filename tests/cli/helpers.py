"""Run the real command line in a process of its own, as a person or a script would."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The command line, as the tests start it.
TTT = [sys.executable, "-m", "tttlab"]


def ttt(
    *args: str, input: str | None = None, timeout: float = 120, cwd: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``ttt ARGS`` to its end, in a process of its own: forked from one that has
    already imported tttlab (:mod:`tests.cli.forkserver`), or a new ``python -m tttlab``
    where that cannot stand in for it (another environment, a call from a second thread)."""
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
    forked = _FORKS.run([str(a) for a in args], input or "", timeout, cwd, env)
    if forked is not None:
        return forked
    plain: dict[str, Any] = {"capture_output": True, "text": True, "check": False, "cwd": cwd}
    return subprocess.run([*TTT, *args], input=input or "", timeout=timeout, env=env, **plain)


def modules_after(
    *args: str, prefixes: tuple[str, ...]
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run ``ttt ARGS`` by the console script's entry in a new process (never forked: the fork
    server has imported tttlab already); its result, and the modules it had imported at its
    end whose names start with one of ``prefixes``, sorted (read from the last line of its
    stderr)."""
    script = (
        "import atexit, json, sys\n"
        f"sys.argv = ['ttt', *{list(args)!r}]\n"
        "atexit.register(lambda: print(json.dumps(sorted(m for m in sys.modules\n"
        f"    if m.startswith({prefixes!r}))), file=sys.stderr))\n"
        "from tttlab._entry import run\n"
        "run()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=60
    )
    last = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "[]"
    return result, json.loads(last)


def refusal(*args: str, cwd: str | None = None) -> str:
    """The one line that ``ttt ARGS`` (run in ``cwd``) writes when it refuses its arguments:
    it exits 2 and writes that line alone."""
    result = ttt(*args, cwd=cwd)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


class _ForkServer:
    """One :mod:`tests.cli.forkserver` per test process, started on first use, for calls
    made in the environment it started with."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.env: dict[str, str] | None = None
        self.lock = threading.Lock()

    def run(
        self, args: list[str], stdin: str, timeout: float, cwd: str | None, env: dict[str, str]
    ) -> subprocess.CompletedProcess[str] | None:
        if os.environ.get("TTT_TESTS_NO_FORK") or not self.lock.acquire(blocking=False):
            return None
        try:
            if self.process is None or self.process.poll() is not None:
                self.env = env
                self.process = subprocess.Popen(
                    [sys.executable, str(Path(__file__).with_name("forkserver.py"))],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    env=env,
                )
            if _settings(env) != _settings(self.env or {}):
                return None
            return self._call(args, stdin, timeout, cwd, env)
        finally:
            self.lock.release()

    def _call(
        self, args: list[str], stdin: str, timeout: float, cwd: str | None, env: dict[str, str]
    ) -> subprocess.CompletedProcess[str]:
        assert self.process is not None
        assert self.process.stdin
        assert self.process.stdout
        with tempfile.TemporaryDirectory(prefix="ttt-call-") as folder:
            files = {name: Path(folder) / name for name in ("stdin", "stdout", "stderr")}
            files["stdin"].write_text(stdin)
            for name in ("stdout", "stderr"):
                files[name].touch()
            request = {name: str(path) for name, path in files.items()}
            request |= {"args": args, "cwd": cwd or os.getcwd(), "timeout": timeout, "env": env}
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
            answer = json.loads(self.process.stdout.readline())
            out, err = (files[n].read_text(errors="replace") for n in ("stdout", "stderr"))
        if answer["timed_out"]:
            raise subprocess.TimeoutExpired([*TTT, *args], timeout, out, err)
        return subprocess.CompletedProcess([*TTT, *args], answer["returncode"], out, err)


def _settings(env: dict[str, str]) -> dict[str, str]:
    """What of an environment the fork server's imports may have read: all of it but the
    name of the running test, which pytest changes for every test."""
    return {k: v for k, v in env.items() if k != "PYTEST_CURRENT_TEST"}


_FORKS = _ForkServer()


def start_ttt(*args: str | Path, env: dict[str, str] | None = None, **popen: Any) -> Any:
    """Start ``ttt ARGS`` in the background (text pipes unless told otherwise), with Ctrl-C
    delivered as a terminal delivers it."""
    options: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    options |= {"text": True, "preexec_fn": default_sigint}
    return subprocess.Popen(
        [*TTT, *(str(a) for a in args)],
        env=dict(os.environ, NO_COLOR="1", **(env or {})),
        **(options | popen),
    )


def interrupt_when(proc: Any, ready: Callable[[], bool], wait: float = 120) -> str:
    """Ctrl-C to a started ``ttt`` once ``ready()`` holds (or it has ended, or 120 s have
    passed); waits up to ``wait`` s for it to end and returns its stderr."""
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and not ready():
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=wait)
    finally:
        proc.kill()
    return str(err)


def default_sigint() -> None:
    """For ``preexec_fn``: Ctrl-C as a terminal delivers it. A shell that starts the suite
    in the background hands its children SIGINT ignored, and Python keeps it so."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def pids_where(test: Any) -> list[int]:
    """The processes whose ``/proc/PID`` folder passes ``test``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if test(entry):
                    found.append(int(entry.name))
            except OSError:  # gone meanwhile
                continue
    return found
