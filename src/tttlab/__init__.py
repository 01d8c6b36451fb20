"""tttlab: learn, solve and play tic-tac-toe and its m,n,k cousins.

The Python API (:mod:`tttlab.api`) is reachable from here, loaded on first use so that
``import tttlab`` stays light::

    import tttlab
    agent = tttlab.train("q", board="3x3", episodes=20_000, seed=0)
    tttlab.evaluate(agent)

Each name means one thing: ``tttlab.train``, ``evaluate``, ``solve`` and ``mdp`` are the
API's functions, and no subpackage has those names (the learners live in
``tttlab.learners``, the solvers in ``tttlab.solvers``, the judge in ``tttlab.evaluation``,
the MDP in ``tttlab.planning``).
"""

from __future__ import annotations

import sys
from types import ModuleType

# This file is imported first by ``python -m tttlab`` and the ``ttt`` script, before the
# command line can take Ctrl-C cleanly: it imports nothing that takes time (not even
# ``typing`` or ``importlib.metadata``; ``__version__`` is read on first use).
TYPE_CHECKING = False

if TYPE_CHECKING:  # what type checkers and editors see; at run time, loaded on first use
    from tttlab.api import ArenaResult as ArenaResult
    from tttlab.api import CheckReport as CheckReport
    from tttlab.api import Evaluation as Evaluation
    from tttlab.api import MDPResult as MDPResult
    from tttlab.api import Proof as Proof
    from tttlab.api import SolveResult as SolveResult
    from tttlab.api import TrainedAgent as TrainedAgent
    from tttlab.api import TrainedNetwork as TrainedNetwork
    from tttlab.api import arena as arena
    from tttlab.api import check as check
    from tttlab.api import evaluate as evaluate
    from tttlab.api import load as load
    from tttlab.api import mdp as mdp
    from tttlab.api import position as position
    from tttlab.api import solve as solve
    from tttlab.api import train as train
    from tttlab.errors import TttlabError as TttlabError
    from tttlab.errors import TttlabTypeError as TttlabTypeError
    from tttlab.game import Position as _Position

    __version__: str

#: The API's names, by the module that defines them.
_LAZY = {
    "train": "tttlab.api",
    "evaluate": "tttlab.api",
    "solve": "tttlab.api",
    "arena": "tttlab.api",
    "check": "tttlab.api",
    "CheckReport": "tttlab.api",
    "load": "tttlab.api",
    "mdp": "tttlab.api",
    "position": "tttlab.api",
    "ArenaResult": "tttlab.api",
    "Evaluation": "tttlab.api",
    "MDPResult": "tttlab.api",
    "Proof": "tttlab.api",
    "SolveResult": "tttlab.api",
    "TrainedAgent": "tttlab.api",
    "TrainedNetwork": "tttlab.api",
    "TttlabError": "tttlab.errors",
    "TttlabTypeError": "tttlab.errors",
}

__all__ = ["__version__", *_LAZY]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tttlab")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0.0.0"


def __getattr__(name: str) -> object:
    """Load an API name on first use (``import tttlab`` imports no numpy, numba or scipy)."""
    if name == "__version__":
        globals()[name] = found = _version()
        return found
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tttlab' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    """The API's names and the subpackages loaded so far (for tab completion)."""
    loaded = {
        name
        for name, value in globals().items()
        if isinstance(value, ModuleType) and value.__name__.startswith("tttlab.")
    }
    return sorted({*__all__, *loaded})


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
    html = shell.display_formatter.formatters["text/html"]
    html.for_type_by_name("tttlab.usercode.report", "CheckReport", _report_html)


def _position_svg(position: _Position) -> str:
    from tttlab.render import board_svg

    return board_svg(position)


def _report_html(report: CheckReport) -> str:
    from tttlab.usercode.report_html import report_html

    return report_html(report)


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext tttlab``: the ``%ttt_check`` magic, which grades the cells run so far in
    their box and shows the report (:mod:`tttlab.jupyter`)."""
    from tttlab.jupyter.magics import load_ipython_extension as load

    load(ipython)
    _register_notebook_display()  # tttlab may have been imported before the shell was made


_register_notebook_display()
