"""Run the real command line in a subprocess, as a person or a script would."""

from __future__ import annotations

import os
import subprocess
import sys


def ttt(
    *args: str, input: str | None = None, timeout: float = 120, cwd: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "tttlab", *args],
        input=input if input is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
        cwd=cwd,
    )


def default_sigint() -> None:
    """For ``preexec_fn``: Ctrl-C as a terminal delivers it. A shell that starts the suite
    in the background hands its children SIGINT ignored, and Python keeps it so."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
