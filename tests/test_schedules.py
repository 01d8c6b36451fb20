"""Schedules of a learning rate or an exploration rate over a run (``tttlab.schedules``)."""

from __future__ import annotations

import pytest

from tttlab.schedules import Schedule


def test_schedules() -> None:
    assert Schedule("constant", 0.3).at(500, 1000) == 0.3
    lin = Schedule("linear", 0.5, 0.1)
    assert lin.at(0, 101) == 0.5
    assert lin.at(100, 101) == pytest.approx(0.1)
    assert lin.at(50, 101) == pytest.approx(0.3)
    exp = Schedule("exponential", 0.4, 0.1)
    assert exp.at(50, 101) == pytest.approx(0.2)
