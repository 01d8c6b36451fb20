"""Ctrl-C that is never lost inside numba's compiler.

When numba compiles or loads a kernel, llvmlite calls back into Python through ctypes, and an
exception raised inside a ctypes callback is printed and dropped ("Exception ignored on
calling ctypes callback function"). A Ctrl-C landing there would vanish, and the command would
run on. This SIGINT handler raises ``KeyboardInterrupt`` as Python's own does, except inside
such a callback: then it asks again a moment later, from outside.
"""

from __future__ import annotations

import _thread
import signal
import threading
from types import FrameType

__all__ = ["install_safe_interrupt"]

_RETRY_SECONDS = 0.02


def _inside_llvmlite(frame: FrameType | None) -> bool:
    while frame is not None:
        if "llvmlite" in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


def _handler(signum: int, frame: FrameType | None) -> None:
    if _inside_llvmlite(frame):
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
