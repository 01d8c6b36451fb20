"""``ttt policy``: the documented JSON, pinned to the facts."""

from __future__ import annotations

import json

import pytest

from tests.cli.helpers import refusal, ttt
from tttlab.game import Geometry, Position
from tttlab.solvers import solve_table


def test_policy_perfect_lists_every_position_with_only_optimal_moves() -> None:
    result = ttt("policy", "perfect", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["board"] == "3x3k3"
    table = data["moves"]
    assert len(table) == 4520
    solution = solve_table(Geometry())
    for text, moves in table.items():
        assert len(text) == 9
        p = Position.from_string(text)
        assert moves
        assert set(moves) <= set(solution.optimal_moves(p))


def test_policy_random_lists_all_legal_moves() -> None:
    table = json.loads(ttt("policy", "random", "--json").stdout)["moves"]
    assert table["........."] == list(range(9))
    assert table["XX.OO...."] == [2, 5, 6, 7, 8]


def test_policy_of_minimax_matches_perfect() -> None:
    minimax = json.loads(ttt("policy", "minimax", "--json").stdout)["moves"]
    perfect = json.loads(ttt("policy", "perfect", "--json").stdout)["moves"]
    assert minimax == perfect


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["policy"], "Missing argument"),
        (["policy", "nobody"], "unknown agent"),
    ],
)
def test_bad_arguments(args: list[str], fragment: str) -> None:
    assert fragment in refusal(*args)
