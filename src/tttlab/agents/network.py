"""Agents that act from a neural network, evaluated with numpy alone. The network's
architecture and its forward pass are :mod:`tttlab.agents.forward`'s (their names are
re-exported here, where agent files and earlier code import them).

In evaluation mode a network agent plays its raw output: the moves of highest probability
(or value), ties kept. ``NetworkAgent.with_search(n)`` adds ``n`` simulations of the
search that trained it (Gumbel MuZero without noise, :mod:`tttlab.agents.gumbel`) at each
move.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from tttlab.agents.base import check_playable, sample, spread, uniform
from tttlab.agents.forward import (
    NETWORK_KINDS,
    PERSPECTIVES,
    Architecture,
    Params,
    encode,
    forward,
    neighbourhoods,
)
from tttlab.agents.gumbel import gumbel_search, play_considered
from tttlab.errors import AgentError
from tttlab.game import Geometry, Player, Position

__all__ = [
    "NETWORK_KINDS",
    "PERSPECTIVES",
    "Architecture",
    "NetworkAgent",
    "Params",
    "encode",
    "forward",
    "neighbourhoods",
]

#: Moves within this much of the best probability (or value) count as ties.
TIE = 1e-6
#: Play-time search leaves each node's Q-values in the game's own [−1, 1] (mctx's
#: ``rescale_values=False``) where training stretches them between their minimum and maximum:
#: stretched, a difference of 0.001 between two moves' values outweighs a prior of 0.81
#: against 0.07, and a few simulations then override the policy for noise. Measured on three
#: 10-minute 4×4 k=4 networks, ``:N`` for N = 1 … 64, proved seat by seat: unbeatable in 31
#: of 42 (seed, N, seat) cases without stretching, 23 with, and never fewer (docs/benchmarks.md).
PLAY_RESCALE = False
#: Searches run at once: their trees (simulations × cells entries each) stay near this.
_TREE_ENTRIES = 1 << 22


def _mean(stack: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """The mean over the first axis, summed in sorted order so that it does not depend on
    the order of the stack (the order the symmetries come in)."""
    mean: npt.NDArray[np.float32] = (np.sort(stack, axis=0).sum(axis=0) / len(stack)).astype(
        np.float32
    )
    return mean


def _best(scores: npt.NDArray[Any], legal: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """The legal moves within TIE of the best score, per row."""
    masked = np.where(legal, scores, -np.inf)
    top = masked.max(axis=-1, keepdims=True)
    result: npt.NDArray[np.bool_] = legal & (masked >= top - TIE)
    return result


def _softmax(logits: npt.NDArray[Any], legal: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    masked = np.where(legal, logits.astype(np.float64), -np.inf)
    masked -= masked.max(axis=-1, keepdims=True)
    e = np.exp(masked)
    result: npt.NDArray[np.float64] = e / e.sum(axis=-1, keepdims=True)
    return result


@dataclass(eq=False)
class NetworkAgent:
    """Greedy play from a network's policy (AlphaZero) or action values (DQN).

    Attributes:
        algorithm: ``alphazero`` or ``dqn``.
        geometry: the board.
        architecture: the network's shape.
        params: its parameters, float32 arrays by name (see ``Architecture.shapes``).
        simulations: simulations of search per move at play time (0: the raw network).
        meta: the agent file's header.
    """

    algorithm: str
    geometry: Geometry
    architecture: Architecture
    params: Params
    meta: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    simulations: int = 0
    #: Play the policy's own distribution over the legal moves (policy networks only:
    #: ``ttt eval --stochastic``), not its most probable moves.
    stochastic: bool = False

    seats: tuple[Player, ...] = (Player.X, Player.O)
    #: Its raw output, its noiseless search and its own distribution are each a function
    #: of the position (not a field).
    deterministic = True

    def __post_init__(self) -> None:
        if self.algorithm not in NETWORK_KINDS:
            raise AgentError(f"unknown network algorithm {self.algorithm!r}")
        if self.architecture.cells != self.geometry.cells:
            raise AgentError("the network does not fit this board")
        for key, array in self.params.items():
            if not np.isfinite(array).all():
                raise AgentError(f"the network's {key} holds values that are not finite")

    @property
    def name(self) -> str:
        base = self.label or self.algorithm
        base = f"{base}:{self.simulations}" if self.simulations else base
        return f"{base} (stochastic)" if self.stochastic else base

    def with_stochastic(self) -> NetworkAgent:
        """The same network, playing its policy's own distribution over the legal moves."""
        if self.architecture.head != "policy-value" or self.simulations:
            raise AgentError(
                "only a policy network's raw policy (ppo, alphazero) can be played stochastically"
            )
        return dataclasses.replace(self, stochastic=True)

    def with_search(self, simulations: int) -> NetworkAgent:
        """The same network, searching ``simulations`` times per move."""
        if self.architecture.head != "policy-value":
            raise AgentError("only a policy-and-value network (alphazero) can guide a search")
        if not 1 <= simulations <= 1_000_000:
            raise AgentError("simulations must be 1 to 1,000,000")
        return dataclasses.replace(self, simulations=simulations, stochastic=False)

    # -- the network --------------------------------------------------------------------
    def outputs(
        self, boards: npt.NDArray[Any], movers: npt.NDArray[Any]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None]:
        """The raw heads for a batch of boards (n × cells, 0/1/2) and movers (1/2), from
        the mover's side whatever the network's perspective; averaged over the board's
        symmetries when the network is ``symmetrized``."""
        if not self.architecture.symmetrized:
            return self._oriented(boards, movers)
        boards = np.asarray(boards)
        perms = np.array(self.geometry.symmetries, dtype=np.intp)
        found = [self._oriented(boards[:, perm], movers) for perm in perms]
        # Each board's outputs go back to the cells they speak for.
        back = np.empty((len(found), *found[0][0].shape))
        for i, (perm, (scores, _)) in enumerate(zip(perms, found, strict=True)):
            back[i][:, perm] = scores
        values = [v for _, v in found if v is not None]
        return _mean(back), _mean(np.stack(values)) if values else None

    def _oriented(
        self, boards: npt.NDArray[Any], movers: npt.NDArray[Any]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None]:
        """The perceptron's own outputs, from the mover's side."""
        if self.architecture.perspective == "mover":
            return forward(self.architecture, self.params, encode(boards, movers))
        q, _ = forward(self.architecture, self.params, encode(boards, np.ones(len(boards))))
        sign = np.where(np.asarray(movers).reshape(-1, 1) == int(Player.X), 1.0, -1.0)
        return (q * sign).astype(np.float32), None

    def evaluate_position(self, position: Position) -> tuple[dict[int, float], float | None]:
        """(move → network probability or action value, network value or None)."""
        check_playable(self.geometry, position)
        scores, value = self.outputs(np.array([position.cells]), np.array([int(position.to_move)]))
        legal = np.array(position.cells) == 0
        shown = scores[0] if self.architecture.head == "q" else _softmax(scores, legal[None])[0]
        moves = {int(m): float(shown[m]) for m in position.legal_moves}
        return moves, None if value is None else float(value[0])

    def _decisions(self, boards: npt.NDArray[Any], movers: npt.NDArray[Any]) -> Any:
        """Each row's move probabilities, unnormalised: its best moves (ties kept), or
        with ``stochastic`` the policy's own distribution."""
        scores, _ = self.outputs(boards, movers)
        if self.stochastic:
            return _softmax(scores, boards == 0)
        return _best(scores, boards == 0)

    # -- the agent protocol -------------------------------------------------------------
    def move_probabilities(self, position: Position) -> Mapping[int, float]:
        check_playable(self.geometry, position)
        if self.simulations:
            rows = self._searched(np.array([position.cells]))
            return {int(np.argmax(rows[0])): 1.0}
        best = self._decisions(np.array([position.cells]), np.array([int(position.to_move)]))
        if self.stochastic:
            return {int(m): float(best[0][m]) for m in position.legal_moves}
        return uniform([int(m) for m in np.flatnonzero(best[0])])

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        return sample(self.move_probabilities(position), rng)

    def move_values(self, position: Position) -> Mapping[int, float] | None:
        """DQN: its action values. AlphaZero: the value of each move's result, from the
        mover's side (the network's value of the position it leaves, or the result when
        the move ends the game)."""
        check_playable(self.geometry, position)
        if self.architecture.head == "q":
            return self.evaluate_position(position)[0]
        children = [position.apply(m) for m in position.legal_moves]
        open_ = [c for c in children if not c.is_terminal]
        values: dict[int, float] = {}
        if open_:
            _, v = self.outputs(
                np.array([c.cells for c in open_]), np.array([int(c.to_move) for c in open_])
            )
            assert v is not None
            found = {c.id: -float(x) for c, x in zip(open_, v, strict=True)}
        for move, child in zip(position.legal_moves, children, strict=True):
            if child.is_terminal:
                values[move] = float(child.utility * position.to_move.sign)
            else:
                values[move] = found[child.id]
        return values

    def move_probability_rows(
        self, boards: npt.NDArray[Any], movers: npt.NDArray[Any]
    ) -> npt.NDArray[np.float64]:
        """Evaluation-mode move probabilities for a batch of open boards (n × cells, 0/1/2)
        and their movers: one forward pass for the batch (raw network), or the searches of
        the batch run together (``simulations``)."""
        if self.simulations:
            return self._searched(np.asarray(boards))
        found = np.asarray(self._decisions(boards, movers), dtype=np.float64)
        return spread(found)

    # -- search at play time ------------------------------------------------------------
    def _network(
        self, boards: npt.NDArray[Any], movers: npt.NDArray[Any]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        logits, value = self.outputs(boards, movers)
        assert value is not None
        return logits, value

    def _searched(self, boards: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        """One-hot rows of the move each board's search chooses (searches batched)."""
        cells = self.geometry.cells
        chunk = max(1, _TREE_ENTRIES // ((self.simulations + 1) * cells))
        rows = np.zeros((len(boards), cells))
        for start in range(0, len(boards), chunk):
            part = boards[start : start + chunk]
            found = gumbel_search(
                self._network,
                self.geometry,
                part,
                self.simulations,
                considered=play_considered(self.simulations),
                rescale=PLAY_RESCALE,
            )
            rows[start + np.arange(len(part)), found.actions] = 1.0
        return rows
