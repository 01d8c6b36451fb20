"""A process that has imported tttlab's command line and forks a child for each ``ttt``
command a test runs: the same ``python -m tttlab`` entry, argv, folder, stdin, stdout,
stderr and exit status, in a process of its own, without paying the interpreter's start-up
and tttlab's imports (about a second of CPU) on each of the suite's few hundred commands.

Run as ``python forkserver.py`` by :mod:`tests.cli.helpers`, which falls back to a plain
subprocess wherever this cannot stand in for one. It reads one JSON request per line on
stdin (``{"args", "cwd", "env", "stdin", "stdout", "stderr", "timeout"}``: the last
three are files), forks, waits (killing the child at the timeout) and answers ``{"returncode",
"timed_out"}``. It imports no thread-starting library (no JAX, no Ray): those load in the
child, after the fork, as in a fresh process.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import os
import signal
import sys
import threading
import time
import traceback
from typing import Any


def _child(request: dict[str, Any], main_path: str) -> None:
    """Become the command: never returns."""
    code: object = 0
    try:
        for fd, name, flags in (
            (0, "stdin", os.O_RDONLY),
            (1, "stdout", os.O_WRONLY),
            (2, "stderr", os.O_WRONLY),
        ):
            opened = os.open(request[name], flags)
            os.dup2(opened, fd)
            os.close(opened)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.path[0] = os.getcwd()  # as ``python -m`` puts the current folder first
        sys.argv = [main_path, *request["args"]]
        from tttlab._entry import run

        try:
            run()
        except SystemExit as stop:
            code = stop.code
        except BaseException:
            traceback.print_exc()
            code = 1
        with contextlib.suppress(BaseException):
            threading._shutdown()  # type: ignore[attr-defined]  # as the interpreter's exit does
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
    finally:
        os._exit(code if isinstance(code, int) else 0)


def main() -> None:
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    from numba.core.registry import cpu_target

    import tttlab._entry  # what every command imports first
    import tttlab.cli  # and then

    cpu_target.target_context.refresh()  # numba's registries, read before its first function
    # The network learners' libraries (0.6 s of imports in each network command): JAX
    # starts no thread and makes no backend on import (its fork warning is armed by the first
    # backend, made in the child), and the table cache's folder it is told is the child's own,
    # as the child's environment is this process's (else tests.cli.helpers runs a subprocess).
    with contextlib.suppress(ImportError):
        import tttlab.neural.alphazero
        import tttlab.neural.dqn
        import tttlab.neural.ppo  # noqa: F401

    spec = importlib.util.find_spec("tttlab.__main__")
    assert spec is not None
    assert spec.origin is not None
    for line in requests:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            requests.close()
            answers.close()
            _child(request, spec.origin)
        deadline = time.monotonic() + float(request["timeout"])
        timed_out = False
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
                timed_out = True
                break
            time.sleep(0.002)
        answer = {"returncode": os.waitstatus_to_exitcode(status), "timed_out": timed_out}
        answers.write(json.dumps(answer).encode() + b"\n")
        answers.flush()


if __name__ == "__main__":
    main()
