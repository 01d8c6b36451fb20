"""What every exercise's side in the box shares (:mod:`tttlab.usercode.boxside.shapes.base`,
and :mod:`tttlab.usercode.exercises.base` on the grader's side): how a value the student's
code returned becomes a number, a cell or a truth value, and the tables drawn alike on both
sides."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from tttlab.usercode.boxside.shapes.base import drawn, number, pair, short, truth_of, whole


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, 3),
        (np.int64(3), 3),
        (3.0, 3),
        (np.float32(4.0), 4),
        (3.5, None),
        (True, None),
        ("3", None),  # a string of digits is no cell (the review's reproduction)
        (b"3", None),
        (float("nan"), None),
        (None, None),
    ],
)
def test_whole_takes_integers_and_refuses_strings(value: Any, expected: int | None) -> None:
    assert whole(value) == expected


def test_numbers_truths_pairs_and_shortened_reprs() -> None:
    assert number(np.zeros((1, 1))) == 0.0
    assert number([2.5]) == 2.5
    assert number("2.5") is None
    assert number([1, 2]) is None
    assert truth_of(np.bool_(True)) is True
    assert truth_of(1) is None
    assert pair((1, 2)) == 5
    assert pair((3, 0)) is None
    assert pair(("1", 2)) is None
    assert len(short("x" * 500)) == 60


def test_a_table_is_drawn_alike_from_its_seed() -> None:
    rng = random.Random(12)
    assert drawn(12, 5) == [rng.random() for _ in range(5)]
    assert drawn(12, 5) != drawn(13, 5)
