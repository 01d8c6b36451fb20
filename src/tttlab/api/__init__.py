"""The Python API: what the ``ttt`` commands do, as functions and values for notebooks.

>>> import tttlab
>>> tttlab.solve("3x3").value
0
>>> agent = tttlab.train("q", episodes=20_000, seed=0, progress=False)
>>> tttlab.evaluate(agent).X.worst_case
0

The names and meanings are the CLI's and its JSON's: ``to_dict()`` of each result is exactly
what the matching command prints with ``--json``, and the commands call these functions.
Bad input raises a :class:`~tttlab.TttlabError` (a ``ValueError``) with a one-line message;
every error class of tttlab's own subclasses it, and an argument of the wrong type raises
:class:`~tttlab.TttlabTypeError` (also a ``TypeError``).

The modules: :mod:`~tttlab.api.calls` (the functions), :mod:`~tttlab.api.judging` (the
judges: :func:`evaluate` and :func:`check`), :mod:`~tttlab.api.agents` (what
:func:`load` and :func:`train` return), :mod:`~tttlab.api.results` (the typed results),
:mod:`~tttlab.api.checks` (argument checks), :mod:`~tttlab.api.display` (notebook HTML).
When it runs, each imports only those before it in the order checks, display, results,
judging, agents, calls (tests/test_layers.py; type hints may look ahead).
"""

from tttlab.api.agents import BuiltinAgent, LoadedAgent, TrainedAgent, TrainedNetwork, load
from tttlab.api.calls import arena, mdp, position, solve, train, uses_table
from tttlab.api.judging import check, evaluate
from tttlab.api.results import ArenaResult, Curve, Evaluation, MDPResult, Proof, SolveResult
from tttlab.errors import TttlabError, TttlabTypeError
from tttlab.usercode.report import CheckReport

__all__ = [
    "ArenaResult",
    "BuiltinAgent",
    "CheckReport",
    "Curve",
    "Evaluation",
    "LoadedAgent",
    "MDPResult",
    "Proof",
    "SolveResult",
    "TrainedAgent",
    "TrainedNetwork",
    "TttlabError",
    "TttlabTypeError",
    "arena",
    "check",
    "evaluate",
    "load",
    "mdp",
    "position",
    "solve",
    "train",
    "uses_table",
]
