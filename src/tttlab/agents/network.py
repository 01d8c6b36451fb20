"""Agents that act from a neural network, evaluated with numpy alone.

The networks are trained with JAX (``tttlab.neural``, the ``neural`` extra), but playing,
judging and serving them needs only numpy: the forward pass of a small multilayer
perceptron is a few matrix products. So the base install plays every agent file.

Input: the board from the mover's side, two planes (the mover's stones, the opponent's)
interleaved per cell, as ``tttlab.vector``'s ``observation.reshape(-1)``. Optionally
(``conv``) 3×3 convolutions over the board come first, zero beyond its edges, each
followed by a ReLU; their planes, flattened, feed the perceptron. Output: a
policy head (one logit per cell) and a value head (tanh, the mover's expected result) for
AlphaZero; one head of action values (the mover's side) for DQN.

In evaluation mode a network agent plays its raw output: the moves of highest probability
(or value), ties kept. ``NetworkAgent.with_search(n)`` adds ``n`` simulations of the
search that trained it (Gumbel MuZero without noise, :mod:`tttlab.agents.gumbel`) at each
move.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from tttlab.agents.base import check_playable, sample, spread, uniform
from tttlab.agents.gumbel import gumbel_search, play_considered
from tttlab.errors import AgentError
from tttlab.game import Geometry, Player, Position
from tttlab.limits import CONV_CHANNELS, CONV_LAYERS, HIDDEN_LAYERS, HIDDEN_WIDTH

__all__ = [
    "NETWORK_KINDS",
    "PERSPECTIVES",
    "Architecture",
    "NetworkAgent",
    "encode",
    "neighbourhoods",
]

#: Algorithm → what its network's head gives.
NETWORK_KINDS = {"alphazero": "policy-value", "dqn": "q", "ppo": "policy-value"}
#: Whose side a network sees the board from and scores moves for: ``mover`` (the mover's
#: stones first, values for the mover, one network for both seats) or ``x`` (X's stones
#: first, values for X, which X maximises and O minimises, as the seed's Q-learning).
PERSPECTIVES = ("mover", "x")
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
#: A convolution's patches (rows × cells × 9 × channels floats) stay near this many: 8 MB,
#: the fastest of 2^16 … 2^24 for 5×5 with 32 channels on the 2-core CPU (2^24: 1.8 times
#: the time; the patches are written, then read once by the product).
_PATCH_ENTRIES = 1 << 21

Params = dict[str, npt.NDArray[np.float32]]


@functools.cache
def neighbourhoods(cells: int, columns: int) -> npt.NDArray[np.intp]:
    """For each cell of a board ``columns`` wide, the cells of its 3×3 neighbourhood, row by
    row (cells × 9), with ``cells`` (a zero row added after the board) where it runs off
    the edge: a convolution's patches are ``padded[:, neighbourhoods(...)]``.

    >>> neighbourhoods(4, 2)[0].tolist()  # the top left cell of a 2×2 board
    [4, 4, 4, 4, 0, 1, 4, 2, 3]

    Built once per board (every forward pass asks) and read-only, since it is shared.
    """
    rows = cells // columns
    found = np.full((cells, 9), cells, dtype=np.intp)
    for r in range(rows):
        for c in range(columns):
            for j, (dr, dc) in enumerate((a, b) for a in (-1, 0, 1) for b in (-1, 0, 1)):
                if 0 <= r + dr < rows and 0 <= c + dc < columns:
                    found[r * columns + c, j] = (r + dr) * columns + c + dc
    found.setflags(write=False)
    return found


@dataclass(frozen=True)
class Architecture:
    """A multilayer perceptron: ``hidden`` ReLU layers, then the heads of ``head``; with
    ``conv``, 3×3 convolution layers of those many channels (each with a ReLU) over the
    board first, for a board ``columns`` wide, their last planes flattened cell by cell
    into the perceptron.

    ``symmetrized``: the agent's outputs are the perceptron's averaged over the board's
    symmetries (each transformed board's outputs moved back to their cells), so that it
    answers a rotated or reflected position exactly as the position itself.
    """

    cells: int
    hidden: tuple[int, ...]
    head: str  # "policy-value" or "q"
    perspective: str = "mover"
    symmetrized: bool = False
    conv: tuple[int, ...] = ()
    columns: int = 0

    def __post_init__(self) -> None:
        if self.head not in NETWORK_KINDS.values():
            raise AgentError(f"unknown network head {self.head!r}")
        if self.perspective not in PERSPECTIVES:
            raise AgentError(f"unknown network perspective {self.perspective!r}")
        if self.perspective == "x" and self.head != "q":
            raise AgentError("only action values (dqn) can be kept from X's side")
        if not self.hidden or any(not 1 <= w <= HIDDEN_WIDTH for w in self.hidden):
            raise AgentError(f"hidden layers must be 1 to {HIDDEN_WIDTH} wide, at least one layer")
        if len(self.hidden) > HIDDEN_LAYERS:
            raise AgentError(f"at most {HIDDEN_LAYERS} hidden layers")
        if len(self.conv) > CONV_LAYERS or any(not 1 <= c <= CONV_CHANNELS for c in self.conv):
            raise AgentError(
                f"convolutions must be at most {CONV_LAYERS} layers"
                f" of 1 to {CONV_CHANNELS} channels"
            )
        if self.conv and (self.columns < 1 or self.cells % self.columns):
            raise AgentError("a convolution needs the board's width, a divisor of its cells")
        if not self.conv and self.columns:
            raise AgentError("the board's width is given only with convolutions")

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Every parameter's name and shape (weights are out × in, as equinox keeps them;
        a convolution's in is its 3×3 patch, cell by cell, channels innermost)."""
        shapes: dict[str, tuple[int, ...]] = {}
        planes = 2
        for i, out in enumerate(self.conv):
            shapes[f"conv.{i}.weight"] = (out, 9 * planes)
            shapes[f"conv.{i}.bias"] = (out,)
            planes = out
        width = planes * self.cells
        for i, out in enumerate(self.hidden):
            shapes[f"torso.{i}.weight"] = (out, width)
            shapes[f"torso.{i}.bias"] = (out,)
            width = out
        if self.head == "policy-value":
            shapes["policy.weight"] = (self.cells, width)
            shapes["policy.bias"] = (self.cells,)
            shapes["value.weight"] = (1, width)
            shapes["value.bias"] = (1,)
        else:
            shapes["q.weight"] = (self.cells, width)
            shapes["q.bias"] = (self.cells,)
        return shapes

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "kind": "mlp",
            "cells": self.cells,
            "hidden": list(self.hidden),
            "head": self.head,
            "perspective": self.perspective,
        }
        if self.symmetrized:  # files of unsymmetrized networks stay as they were
            found["symmetrized"] = True
        if self.conv:  # so do those of perceptrons alone
            found["conv"] = list(self.conv)
            found["columns"] = self.columns
        return found

    @classmethod
    def from_json(cls, data: Any) -> Architecture:
        """Parse a header's ``network`` field; ValueError says what is wrong."""
        if not isinstance(data, dict) or data.get("kind") != "mlp":
            raise AgentError("network is not an mlp description")
        cells, hidden, head = data.get("cells"), data.get("hidden"), data.get("head")
        if not isinstance(cells, int) or isinstance(cells, bool) or cells < 1:
            raise AgentError("network cells must be a positive integer")
        if not isinstance(hidden, list) or not all(
            isinstance(w, int) and not isinstance(w, bool) for w in hidden
        ):
            raise AgentError("network hidden must be a list of integers")
        if not isinstance(head, str):
            raise AgentError("network head must be a string")
        perspective = data.get("perspective", "mover")  # files from before it was named
        if not isinstance(perspective, str):
            raise AgentError("network perspective must be a string")
        symmetrized = data.get("symmetrized", False)
        if not isinstance(symmetrized, bool):
            raise AgentError("network symmetrized must be true or false")
        conv, columns = data.get("conv", []), data.get("columns", 0)
        if not isinstance(conv, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) for c in conv
        ):
            raise AgentError("network conv must be a list of integers")
        if not isinstance(columns, int) or isinstance(columns, bool):
            raise AgentError("network columns must be an integer")
        return cls(cells, tuple(hidden), head, perspective, symmetrized, tuple(conv), columns)


def encode(boards: npt.NDArray[Any], movers: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """Network inputs for boards (n × cells of 0/1/2) with the mover (1 X, 2 O) of each."""
    boards = np.asarray(boards)
    mover = np.asarray(movers).reshape(-1, 1)
    planes = np.stack([boards == mover, boards == 3 - mover], axis=-1)
    return planes.reshape(len(boards), -1).astype(np.float32)


def forward(
    architecture: Architecture, params: Params, x: npt.NDArray[np.float32]
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None]:
    """(logits or action values, value or None) for a batch of inputs."""
    h = _convolved(architecture, params, x) if architecture.conv else x
    for i in range(len(architecture.hidden)):
        h = np.maximum(h @ params[f"torso.{i}.weight"].T + params[f"torso.{i}.bias"], 0.0)
    if architecture.head == "q":
        return h @ params["q.weight"].T + params["q.bias"], None
    logits = h @ params["policy.weight"].T + params["policy.bias"]
    value = np.tanh(h @ params["value.weight"].T + params["value.bias"])[:, 0]
    return logits, value


def _convolved(
    architecture: Architecture, params: Params, x: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """The convolutions' last planes, flattened cell by cell, for a batch of inputs (in
    slices, so that the patches stay near ``_PATCH_ENTRIES``)."""
    cells = architecture.cells
    around = neighbourhoods(cells, architecture.columns)
    step = max(1, _PATCH_ENTRIES // (9 * cells * max(2, *architecture.conv)))
    out = np.empty((len(x), cells * architecture.conv[-1]), dtype=np.float32)
    for start in range(0, len(x), step):
        h = x[start : start + step].reshape(-1, cells, 2)
        n = len(h)
        for i in range(len(architecture.conv)):
            padded = np.concatenate([h, np.zeros_like(h[:, :1])], axis=1)
            # one matrix product for every cell of every board: BLAS's fast case. np.take
            # gives the patches in C order, so the reshape is free; ``padded[:, around]``
            # did not, and copied them again (2.4 times the time of a 32-channel layer)
            patches = np.take(padded, around.ravel(), axis=1).reshape(n * cells, -1)
            h = (patches @ params[f"conv.{i}.weight"].T).reshape(n, cells, -1)
            h += params[f"conv.{i}.bias"]
            np.maximum(h, 0.0, out=h)
        out[start : start + step] = h.reshape(n, -1)
    return out


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
