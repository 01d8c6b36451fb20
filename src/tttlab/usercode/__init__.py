"""A student's exercise, judged: ``ttt check`` grades it on every reachable board, in a box
of its own (:mod:`tttlab.usercode.box`), believing nothing it reports.

Layer: above the agents and the exact judge, below the API, the CLI and the web page. It is
split along the trust boundary: :mod:`~tttlab.usercode.boxside` (standard library only) is
all that is copied into the box, where a caller owns the results channel and the clock and a
worker holds the student's code; the rest is the grader's side: the plan and the truth
(:mod:`~tttlab.usercode.exercises`, :mod:`~tttlab.usercode.cases`), the box
(:mod:`~tttlab.usercode.box`, :mod:`~tttlab.usercode.sandbox`), the reading
(:mod:`~tttlab.usercode.protocol`), grading, the report and the formats. This package
imports nothing at import time: its names load on first use.
"""

from __future__ import annotations

from typing import Any

TYPE_CHECKING = False

if TYPE_CHECKING:
    from tttlab.usercode.grading import check_cs50 as check_cs50
    from tttlab.usercode.report import CheckReport as CheckReport

__all__ = ["CheckReport", "check_cs50"]

_LAZY = {
    "check_cs50": "tttlab.usercode.grading",
    "CheckReport": "tttlab.usercode.report",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'tttlab.usercode' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
