"""The ``ttt`` console script. Kept tiny so that Ctrl-C while the heavy modules import
still ends with one line and exit code 130, not a traceback."""

from __future__ import annotations

import os
import sys

#: The exit status of a command stopped by Ctrl-C (or SIGTERM during training).
INTERRUPTED = 130


def _exit(code: object) -> None:
    """Exit with ``code``. After an interruption, exit at once with 130: CPython 3.11 marks
    a ``KeyboardInterrupt`` that passed through any ``exec`` of a string (scipy runs one on
    import, inside numba's first compile) as unhandled and would end the process by SIGINT
    at shutdown, although tttlab handled it. Every file was written and closed before."""
    if code == INTERRUPTED:
        import contextlib

        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(INTERRUPTED)
    sys.exit(code if code is None or isinstance(code, int | str) else 1)


def run() -> None:
    try:  # a Ctrl-C before the handler is in place: the same line, the same 130
        from tttlab._signals import install_safe_interrupt

        install_safe_interrupt()
        if sys.argv[1:2] == ["verify"]:  # the checker alone: nothing of the solver is loaded
            from tttlab._verify_cmd import main
        else:
            from tttlab.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("ttt: interrupted\n")
        _exit(INTERRUPTED)
    try:
        code: object = main()
    except SystemExit as stop:
        code = stop.code
    _exit(code)
