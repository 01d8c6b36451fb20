"""The agents the API hands out, and :func:`load`.

:func:`load` and :func:`tttlab.train` give one of three things, each stated in the types:

- a :class:`TrainedAgent` (a table learner: td, q, sarsa, expected-sarsa, double-q, or an
  MDP's policy),
- a :class:`TrainedNetwork` (alphazero, dqn or ppo),
- for a built-in name, the built-in agent (``random``, ``perfect``, ``minimax``, ``mcts``).

The first two share one surface: ``save(path)`` writes the agent file that ``ttt train
--out`` writes, ``evaluation()`` is the exact evaluation, ``meta`` the file's header, and
in a notebook they show that evaluation. After :func:`tttlab.train`, ``training`` holds
``ttt train --json``'s summary and ``curve`` the learning curve when one was asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from tttlab.agents import BuiltinAgent, make_agent
from tttlab.agents.learned import LearnedAgent
from tttlab.agents.network import NetworkAgent
from tttlab.api.checks import as_agent, geometry_of
from tttlab.api.judging import evaluate
from tttlab.errors import TttlabTypeError
from tttlab.evaluation.curves import routine_judging
from tttlab.game import DEFAULT, Geometry
from tttlab.io import file_agent, is_builtin, save_agent

if TYPE_CHECKING:
    from tttlab.api.results import Curve, Evaluation

__all__ = ["BuiltinAgent", "LoadedAgent", "TrainedAgent", "TrainedNetwork", "as_agent", "load"]


class _Trained:
    """What the API's learned agents share (a mixin over the table and network agents)."""

    meta: dict[str, Any]
    #: The learning curve, when :func:`tttlab.train` was asked for one.
    curve: Curve | None = None
    #: ``ttt train --json``'s summary, after :func:`tttlab.train`.
    training: dict[str, Any] | None = None

    def save(self, path: str | Path) -> Path:
        """Write the agent file (atomically; no pickle): for the same run, the bytes that
        ``ttt train --out`` writes."""
        meta = self.meta
        hyper = meta.get("hyperparameters")
        if not isinstance(hyper, dict):
            hyper = {k: v for k, v in meta.items() if k not in ("episodes", "seed")}
        agent: Any = self
        return save_agent(
            path,
            agent,
            episodes=int(meta.get("episodes", 0)),
            seed=int(meta.get("seed", 0)),
            hyperparameters=hyper,
        )

    def evaluation(self) -> Evaluation:
        """The exact evaluation, as ``ttt eval`` (computed once)."""
        cached: Evaluation | None = self.__dict__.get("_evaluation")
        if cached is None:
            agent: Any = self
            cached = evaluate(agent)
            self.__dict__["_evaluation"] = cached
        return cached

    @classmethod
    def wrap(cls, agent: Any) -> Self:
        """The API's form of ``agent`` (an agent of the class it extends), sharing its
        tables or parameters."""
        if isinstance(agent, cls):
            return agent
        return cls(**{f.name: getattr(agent, f.name) for f in fields(agent)})

    def _repr_html_(self) -> str:
        from tttlab.api.display import evaluation_html, intro_html

        agent: Any = self
        intro = intro_html(agent)
        if not routine_judging(agent.geometry):
            return intro
        return intro + evaluation_html(self.evaluation())


@dataclass(eq=False)
class TrainedAgent(_Trained, LearnedAgent):
    """A table learner's agent (see the module's doc).

    Examples:
        >>> import tttlab
        >>> agent = tttlab.train("td", episodes=5_000, seed=0, progress=False)
        >>> type(agent).__name__, agent.training["algorithm"], agent.meta["episodes"]
        ('TrainedAgent', 'td', 5000)
    """


@dataclass(eq=False)
class TrainedNetwork(_Trained, NetworkAgent):
    """A network learner's agent (see the module's doc).

    Examples:
        ```python
        import tttlab

        net = tttlab.train("alphazero", episodes=8192, seed=0, progress=False)
        net.evaluation().unbeatable      # True: perfect on 3x3 in about 7 s
        net.save("az.npz")               # ttt eval az.npz, or az.npz:64 to add search
        ```
    """


#: What :func:`load` returns.
LoadedAgent = TrainedAgent | TrainedNetwork | BuiltinAgent


def trained(agent: LearnedAgent | NetworkAgent) -> TrainedAgent | TrainedNetwork:
    """The API's form of an agent from a file or a trainer."""
    if isinstance(agent, NetworkAgent):
        return TrainedNetwork.wrap(agent)
    return TrainedAgent.wrap(agent)


def load(agent: str | Path, board: Geometry | str | None = None) -> LoadedAgent:
    """An agent by built-in name (``random``, ``perfect``, ``minimax``, ``mcts:500``) or
    from an agent file (``az.npz:200`` adds 200 simulations of search to a network); a file
    decides the board unless ``board`` is given.

    Examples:
        >>> import tttlab
        >>> tttlab.load("mcts:500").name
        'mcts(500)'
        >>> tttlab.load("missing.npz")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tttlab.errors.AgentError: ...missing.npz...
    """
    if not isinstance(agent, (str, Path)):
        raise TttlabTypeError(f"agent must be a name or a path, not {agent!r}")
    geometry = None if board is None else geometry_of(board)
    spec = str(agent)
    if is_builtin(spec):
        return make_agent(spec, geometry or DEFAULT)
    return trained(file_agent(spec, geometry))
