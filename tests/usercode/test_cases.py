"""The exercises' truth (:mod:`tttlab.usercode.cases`): every reachable board of 3×3, its
moves and its reach by random play, in the order the reports list them."""

from __future__ import annotations

import pytest

from tttlab.usercode.cases import exercise_truth


def test_the_check_space_is_the_facts() -> None:
    truth = exercise_truth()
    assert truth.size == 5478
    assert len(truth.terminals()) == 958
    assert len(truth.decisions()) == 4520
    assert sum(len(truth.legal[i]) for i in truth.decisions()) == 16167
    assert truth.boards[0] == "." * 9
    # report order: by ply, then the most likely between random players first
    pairs = list(zip(range(truth.size - 1), range(1, truth.size), strict=True))
    assert all(truth.ply[a] <= truth.ply[b] for a, b in pairs)
    assert all(truth.reach[a] >= truth.reach[b] for a, b in pairs if truth.ply[a] == truth.ply[b])
    assert sum(truth.reach[i] for i in truth.terminals()) == pytest.approx(1.0)
