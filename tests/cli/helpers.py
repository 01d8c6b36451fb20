"""Run the real command line in a subprocess, as a person or a script would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The command line, as the tests start it.
TTT = [sys.executable, "-m", "tttlab"]


def ttt(
    *args: str, input: str | None = None, timeout: float = 120, cwd: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``ttt ARGS`` to its end."""
    return subprocess.run(
        [*TTT, *args],
        input=input if input is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ, COLUMNS="100", NO_COLOR="1"),
        check=False,
        cwd=cwd,
    )


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
