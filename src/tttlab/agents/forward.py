"""A network's architecture and its forward pass, in numpy alone.

The networks are trained with JAX (``tttlab.neural``, the ``neural`` extra), but playing,
judging and serving them needs only numpy: the forward pass of a small multilayer
perceptron is a few matrix products. So the base install plays every agent file.

Input: the board from the mover's side, two planes (the mover's stones, the opponent's)
interleaved per cell, as ``tttlab.vector``'s ``observation.reshape(-1)``. Optionally
(``conv``) 3×3 convolutions over the board come first, zero beyond its edges, each
followed by a ReLU; their planes, flattened, feed the perceptron. Output: a
policy head (one logit per cell) and a value head (tanh, the mover's expected result) for
AlphaZero; one head of action values (the mover's side) for DQN.

>>> architecture = Architecture(9, (4,), "q")
>>> params = {name: np.ones(shape, np.float32) for name, shape in architecture.shapes().items()}
>>> q, value = forward(architecture, params, encode(np.zeros((1, 9), np.int8), np.array([1])))
>>> q.shape, value
((1, 9), None)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tttlab.errors import AgentError
from tttlab.limits import CONV_CHANNELS, CONV_LAYERS, HIDDEN_LAYERS, HIDDEN_WIDTH

__all__ = [
    "NETWORK_KINDS",
    "PERSPECTIVES",
    "Architecture",
    "Params",
    "encode",
    "forward",
    "neighbourhoods",
]

#: Algorithm → what its network's head gives.
NETWORK_KINDS = {"alphazero": "policy-value", "dqn": "q", "ppo": "policy-value"}
#: Whose side a network sees the board from and scores moves for: ``mover`` (the mover's
#: stones first, values for the mover, one network for both seats) or ``x`` (X's stones
#: first, values for X, which X maximises and O minimises, as the seed's Q-learning).
PERSPECTIVES = ("mover", "x")
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
