"""Ctrl-C that is never lost.

Until a command has something to clean up, a Ctrl-C ends the process at once with 130 (and
one line on stderr), from the signal handler itself: no frame it lands in can swallow it.
Training takes over with its own handler once its loop starts (a flag read between batches,
:class:`tttlab.training.StopOnSignal`); a command whose work must be cleaned up on Ctrl-C
(stopping a sweep's workers, a check's boxes) calls :func:`raise_interrupts` first, and from
then on a Ctrl-C raises ``KeyboardInterrupt``, as below.

When numba compiles or loads a kernel, llvmlite calls back into Python through ctypes, and an
exception raised inside a ctypes callback is printed and dropped ("Exception ignored on
calling ctypes callback function"). So is one raised in a weakref callback (the import
system's module-lock ``cb``) or a ``__del__``, and one raised in a ``__set_name__`` turns
into a RuntimeError. A Ctrl-C landing there would vanish, and the
command would run on. This SIGINT handler raises ``KeyboardInterrupt`` as Python's own does,
except inside such a callback: then it asks again a moment later, from outside.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import threading
from types import FrameType

__all__ = ["install_safe_interrupt", "raise_interrupts"]

_RETRY_SECONDS = 0.02
#: The exit status of a command stopped by Ctrl-C.
INTERRUPTED = 130
#: Whether a Ctrl-C raises KeyboardInterrupt (a command has something to clean up).
_raising = False


def raise_interrupts() -> None:
    """From now on a Ctrl-C raises ``KeyboardInterrupt`` (so that the command's own
    clean-up runs), rather than ending the process at once."""
    global _raising
    _raising = True


def _end_now() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    with contextlib.suppress(OSError):
        os.write(2, b"ttt: interrupted\n")
    os._exit(INTERRUPTED)


def _would_be_dropped(frame: FrameType | None) -> bool:
    """Whether an exception raised at ``frame`` would reach a callback that Python runs and
    whose exceptions it prints and drops (found in the wild: llvmlite's ctypes callbacks, the
    module lock's weakref callback during imports, finalizers)."""
    while frame is not None:
        code = frame.f_code
        if "llvmlite" in code.co_filename or code.co_name == "__del__":
            return True
        # Python 3.11 wraps an exception raised in a descriptor's ``__set_name__`` (run while
        # a class is created: numba's ``BaseContext`` has a ``cached_property``) in a
        # RuntimeError, so the KeyboardInterrupt would surface as an internal error.
        if code.co_name == "__set_name__":
            return True
        if code.co_name == "cb" and "importlib" in code.co_filename:
            return True
        frame = frame.f_back
    return False


def _handler(signum: int, frame: FrameType | None) -> None:
    if not _raising:
        _end_now()
    if _would_be_dropped(frame):
        timer = threading.Timer(_RETRY_SECONDS, _thread.interrupt_main, args=(signum,))
        timer.daemon = True
        timer.start()
        return
    raise KeyboardInterrupt


def install_safe_interrupt() -> None:
    """Replace Python's default SIGINT handler (only that one: an ignored SIGINT stays
    ignored, and a program's own handler stays)."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _handler)
