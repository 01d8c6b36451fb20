"""Unboxed: agents from anyone's code, run in the calling process.

This code imports and runs a user's Python file or callable (``file.py:NAME``,
``package.module:NAME``, or the object itself) in the calling process, with no box and no
limits beyond what each caller sets: the code can do whatever the process can. Load only
code you trust. Only ``ttt check`` (:mod:`tttlab.usercode`) runs untrusted code in a box.

:mod:`~tttlab.unboxed.userspec` tells a user's AGENT argument apart and imports it,
:mod:`~tttlab.unboxed.adapters` finds the convention it follows, and
:mod:`~tttlab.unboxed.useragent` asks it for each move, never believing it about itself.
"""

from tttlab.unboxed.adapters import CONVENTIONS, user_agent
from tttlab.unboxed.useragent import SAMPLES, UserAgent, sampling_if_it_differs
from tttlab.unboxed.userspec import is_user_spec, load_object

__all__ = [
    "CONVENTIONS",
    "SAMPLES",
    "UserAgent",
    "is_user_spec",
    "load_object",
    "sampling_if_it_differs",
    "user_agent",
]
