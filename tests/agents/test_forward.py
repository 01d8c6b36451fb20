"""The numpy forward pass of network agents (``tttlab.agents.forward``): convolutions as
scipy computes them, the perceptron's heads, and the architecture's shapes and JSON."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tttlab.agents import AgentError
from tttlab.agents.forward import Architecture, encode, forward, neighbourhoods
from tttlab.game import Geometry


@pytest.mark.parametrize("slice_of", [None, 7])
def test_a_convolution_is_scipys_correlation_of_the_planes(
    slice_of: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each convolution layer computes, per output channel, the sum over input planes of
    scipy's 2-D correlation with a 3×3 kernel (zero beyond the edges), plus the bias, then
    the ReLU: read through a perceptron and a policy head that pass the last layer's single
    plane through as the logits, on a board that is not square; also when the batch of 20
    is cut into slices of 7 boards (the last one short)."""
    from scipy.signal import correlate2d

    import tttlab.agents.forward as forward_pass

    if slice_of is not None:  # patches of 7 boards × 12 cells × 9 places × 3 channels
        monkeypatch.setattr(forward_pass, "_PATCH_ENTRIES", slice_of * 12 * 9 * 3)

    geometry = Geometry.parse("3x4k3")
    cells, rows, cols = geometry.cells, geometry.rows, geometry.cols
    architecture = Architecture(cells, (cells,), "policy-value", conv=(3, 1), columns=cols)
    rng = np.random.default_rng(7)
    params = {n: rng.normal(size=s).astype(np.float32) for n, s in architecture.shapes().items()}
    params["torso.0.weight"] = np.eye(cells, dtype=np.float32)  # the plane, unchanged
    params["torso.0.bias"] = np.zeros(cells, np.float32)
    params["policy.weight"] = np.eye(cells, dtype=np.float32)
    params["policy.bias"] = np.zeros(cells, np.float32)
    boards = rng.integers(0, 3, size=(20, cells))
    movers = rng.integers(1, 3, size=20)
    logits, _ = forward(architecture, params, encode(boards, movers))

    def layer(planes: list[np.ndarray], i: int) -> list[np.ndarray]:
        weight, bias = params[f"conv.{i}.weight"], params[f"conv.{i}.bias"]
        # weight[out, j * planes + p]: patch place j = 3 * (dr + 1) + (dc + 1), plane p
        kernels = weight.reshape(len(weight), 3, 3, len(planes))
        return [
            np.maximum(
                sum(correlate2d(x, k[:, :, p], mode="same") for p, x in enumerate(planes)) + b,
                0.0,
            )
            for k, b in zip(kernels, bias, strict=True)
        ]

    for board, mover, found in zip(boards, movers, logits, strict=True):
        grid = board.reshape(rows, cols)
        planes = [(grid == mover).astype(float), (grid == 3 - mover).astype(float)]
        (last,) = layer(layer(planes, 0), 1)
        np.testing.assert_allclose(found, last.reshape(-1), rtol=1e-5, atol=1e-5)


def test_the_planes_are_the_movers_stones_then_the_opponents_cell_by_cell() -> None:
    boards = np.array([[1, 2, 0], [1, 2, 0]])
    x = encode(boards, np.array([1, 2]))
    assert x.dtype == np.float32
    assert x.tolist() == [[1, 0, 0, 1, 0, 0], [0, 1, 1, 0, 0, 0]]


def test_neighbourhoods_run_off_the_edge_to_the_zero_row() -> None:
    around = neighbourhoods(6, 3)  # 2 rows of 3
    assert around[4].tolist() == [0, 1, 2, 3, 4, 5, 6, 6, 6]  # the middle of the bottom row
    assert around[2].tolist() == [6, 6, 6, 1, 2, 6, 4, 5, 6]
    assert not around.flags.writeable
    assert neighbourhoods(6, 3) is around  # built once per board


def _weights(architecture: Architecture) -> str:
    """Each layer's weight as ``name OUTxIN``, in order, having checked that a bias of OUT
    follows each weight and that there is nothing else."""
    shapes = list(architecture.shapes().items())
    for (weight, (out, _)), (bias, shape) in zip(shapes[::2], shapes[1::2], strict=True):
        assert (bias, shape) == (weight.replace(".weight", ".bias"), (out,))
    return ", ".join(f"{name.removesuffix('.weight')} {o}x{i}" for name, (o, i) in shapes[::2])


def test_the_shapes_are_out_by_in_layer_by_layer() -> None:
    perceptron = Architecture(9, (16, 8), "policy-value")
    assert _weights(perceptron) == "torso.0 16x18, torso.1 8x16, policy 9x8, value 1x8"
    # 3 channels from 9 places of 2 planes, 2 from 9 of 3; the perceptron reads 12 cells of 2
    convolved = Architecture(12, (4,), "q", conv=(3, 2), columns=4)
    assert _weights(convolved) == "conv.0 3x18, conv.1 2x27, torso.0 4x24, q 12x4"


def test_the_heads_outputs_for_a_batch() -> None:
    rng = np.random.default_rng(0)
    architecture = Architecture(9, (5,), "policy-value")
    params = {n: rng.normal(size=s).astype(np.float32) for n, s in architecture.shapes().items()}
    x = encode(rng.integers(0, 3, size=(4, 9)), rng.integers(1, 3, size=4))
    logits, value = forward(architecture, params, x)
    h = np.maximum(x @ params["torso.0.weight"].T + params["torso.0.bias"], 0.0)
    np.testing.assert_allclose(logits, h @ params["policy.weight"].T + params["policy.bias"])
    assert value is not None
    assert value.shape == (4,)
    assert np.all(np.abs(value) <= 1.0)  # tanh


def test_the_json_round_trips_and_files_of_before_read_as_they_were() -> None:
    for architecture in (
        Architecture(9, (16, 8), "policy-value"),
        Architecture(9, (16,), "q", perspective="x"),
        Architecture(25, (32,), "policy-value", symmetrized=True, conv=(8, 8), columns=5),
    ):
        assert Architecture.from_json(architecture.to_json()) == architecture
    plain = Architecture(9, (16,), "q").to_json()
    assert set(plain) == {"kind", "cells", "hidden", "head", "perspective"}
    del plain["perspective"]  # a file from before it was named
    assert Architecture.from_json(plain).perspective == "mover"


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ((9, (16,), "muzero"), "unknown network head"),
        ((9, (16,), "q", "o"), "unknown network perspective"),
        ((9, (16,), "policy-value", "x"), "only action values"),
        ((9, (), "q"), "at least one layer"),
        ((9, (4097,), "q"), "1 to 4096 wide"),
        ((9, (4,) * 17, "q"), "at most 16 hidden layers"),
        ((9, (4,), "q", "mover", False, (257,), 3), "convolutions must be"),
        ((9, (4,), "q", "mover", False, (4,), 2), "a divisor of its cells"),
        ((9, (4,), "q", "mover", False, (), 3), "only with convolutions"),
    ],
)
def test_an_architecture_that_cannot_be_is_refused(arguments: tuple[Any, ...], words: str) -> None:
    with pytest.raises(AgentError, match=words):
        Architecture(*arguments)
