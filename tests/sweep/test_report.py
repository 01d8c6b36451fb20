"""A sweep's summary (``tttlab.sweep.report``): the Wilson interval of its shares."""

from __future__ import annotations

from tttlab.sweep.report import summarise, wilson


def test_wilson_interval() -> None:
    low, high = wilson(0, 10)
    assert low == 0.0
    assert 0.25 < high < 0.35
    low, high = wilson(5, 10)
    assert low < 0.5 < high
    assert abs((0.5 - low) - (high - 0.5)) < 1e-12
    assert summarise([]) == []
