"""The user's own code, judged: ``ttt check`` grades an exercise module on every reachable
board, and agents written with any library become tttlab agents.

Layer: above the agents and the exact judge, below the API, the CLI and the web page. The
child process of ``ttt check`` (:mod:`tttlab.usercode.runner`) starts by importing this
package, so it imports nothing here: its names load on first use.
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
