"""The ways of writing ``step`` that benchmarks/bench_vector_step.py times
(benchmarks/vector_ways.py) all play as ``tttlab.vector.Env`` does: the product's step is one of
them, and each other value of each choice gives the same fields at every ply."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tests.vector.test_env import _random_actions
from tttlab.game import Geometry
from tttlab.vector import make

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from vector_ways import WaysEnv, variant


@pytest.fixture(scope="module")
def product_trace() -> list[np.ndarray]:
    return _random_actions(make("3x4k3"), 400, 14, 5)


def _other_ways() -> list[dict[str, object]]:
    """Choices that, between them, give each of ``WaysEnv.WAYS`` every value but the default
    (``Env``'s own step); the first is the default itself."""
    others = {
        name: [w for w in ways if w != getattr(WaysEnv, name)]
        for name, ways in WaysEnv.WAYS.items()
    }
    most = max(len(values) for values in others.values())
    return [{}] + [
        {name: values[min(i, len(values) - 1)] for name, values in others.items()}
        for i in range(most)
    ]


@pytest.mark.parametrize("choice", _other_ways())
def test_every_way_of_writing_step_plays_as_the_product_step(
    choice: dict[str, object], product_trace: list[np.ndarray]
) -> None:
    assert all(getattr(WaysEnv, name) != value for name, value in choice.items())
    way = type("Way", (WaysEnv,), choice)(Geometry.parse("3x4k3"))
    ours = _random_actions(way, 400, 14, 5)
    for field, other in zip(product_trace, ours, strict=True):
        np.testing.assert_array_equal(field.astype(np.int64), other.astype(np.int64))
    terminated, stones = product_trace[4], product_trace[5]
    assert terminated.any()  # some games are over ...
    assert not terminated.all()  # ... some go on ...
    assert (stones >= 5).any()  # ... long enough for a win on 3x4 k=3


def test_a_way_is_checked_when_made() -> None:
    assert variant("3x3k3", write="scatter", cells="int32")._write == "scatter"
    with pytest.raises(ValueError, match="_write must be one of"):
        type("Bad", (WaysEnv,), {"_write": "teleport"})(Geometry.parse("3x3k3"))
