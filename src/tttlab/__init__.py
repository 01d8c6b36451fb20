"""tttlab: learn, solve and play tic-tac-toe and its m,n,k cousins.

The Python API (:mod:`tttlab.api`) is reachable from here, loaded on first use so that
``import tttlab`` stays light::

    import tttlab
    agent = tttlab.train("q", board="3x3", episodes=20_000, seed=0)
    tttlab.evaluate(agent)

``train``, ``evaluate``, ``solve`` and ``mdp`` share their names with subpackages
(``tttlab.train`` the learners, ``tttlab.solve`` the solvers, ...). The package keeps the
functions under those names: importing a subpackage does not replace them, and the
subpackages stay importable as usual (``from tttlab.solve import solve``).
"""

from __future__ import annotations

import sys
import types
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("tttlab")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

#: The API's functions and types, by the names they have on the package.
_API = (
    "train",
    "evaluate",
    "solve",
    "arena",
    "load",
    "mdp",
    "position",
    "Evaluation",
    "TrainedAgent",
    "TttlabError",
    "TttlabTypeError",
)
_SHADOWED = ("train", "evaluate", "solve", "mdp")

__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    if name in _API:
        from tttlab import api

        value = getattr(api, name)
        object.__setattr__(sys.modules[__name__], name, value)
        return value
    raise AttributeError(f"module 'tttlab' has no attribute {name!r}")


class _Package(types.ModuleType):
    """Keeps the API's functions when a subpackage of the same name is imported (the import
    system would otherwise set ``tttlab.solve`` to the subpackage)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            self.__dict__.pop(name, None)  # resolved again, as the function, by __getattr__
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def _register_notebook_display() -> None:
    """In IPython, draw positions as SVG (the rules themselves never import drawing code)."""
    ipython_module = sys.modules.get("IPython")
    if ipython_module is None:
        return
    try:
        shell = ipython_module.get_ipython()
    except Exception:  # pragma: no cover - an IPython without a shell
        return
    if shell is None:
        return
    svg = shell.display_formatter.formatters["image/svg+xml"]
    svg.for_type_by_name("tttlab.game.position", "Position", _position_svg)


def _position_svg(position: Any) -> str:
    from tttlab.render import board_svg

    return board_svg(position)


_register_notebook_display()
