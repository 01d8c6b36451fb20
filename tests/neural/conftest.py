from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax", reason="the neural extra is not installed")


def assert_resume_equals_whole(make: Callable[[], Any], iterations: int = 4) -> Any:
    """Train ``iterations`` iterations with a checkpoint half-way; a trainer restored from
    that checkpoint must end with the same network, and a fresh trainer with the same seed
    must reach the checkpoint's very state (the seed fixes the run). Returns the
    checkpoint's arrays."""
    whole = make()
    whole.run(iterations // 2)
    arrays, iteration = whole.checkpoint_arrays(), whole.iteration
    again = make()
    again.run(iteration)
    fresh = again.checkpoint_arrays()
    assert fresh.keys() == arrays.keys()
    assert all(np.array_equal(arrays[k], fresh[k]) for k in arrays)
    whole.run(iterations - iteration)
    resumed = make()
    resumed.restore(arrays, iteration)
    resumed.run(iterations - iteration)
    assert resumed.done == whole.done
    a, b = whole.agent().params, resumed.agent().params
    assert all(np.array_equal(a[k], b[k]) for k in a)
    return arrays
