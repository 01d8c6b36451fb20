"""The backward-induction solver: known values, and every listed move really optimal."""

from __future__ import annotations

import numpy as np
import pytest

from tttlab.game import Geometry, Player, Position, StateSpace
from tttlab.solvers import Solution, solve_table


def test_game_value_is_a_draw(solution3: Solution) -> None:
    assert int(solution3.value[0]) == 0
    assert int(solution3.depth[0]) == 9


@pytest.mark.parametrize(
    ("geometry", "value"),
    [
        (Geometry(3, 4, 3), 1),
        (Geometry(2, 2, 2), 1),
        (Geometry(3, 3, 2), 1),
        (Geometry(1, 5, 3), 0),
    ],
)
def test_small_board_values(geometry: Geometry, value: int) -> None:
    assert int(solve_table(geometry).value[0]) == value


def test_values_by_brute_force_minimax(space3: StateSpace, solution3: Solution) -> None:
    """Plain minimax through the rules (no tables, no pruning) on every position."""
    memo: dict[int, int] = {}

    def value(p: Position) -> int:
        if p.id in memo:
            return memo[p.id]
        if p.is_terminal:
            v = p.utility
        else:
            children = [value(p.apply(m)) for m in p.legal_moves]
            v = max(children) if p.to_move is Player.X else min(children)
        memo[p.id] = v
        return v

    for i in range(space3.size):
        assert value(space3.position(i)) == int(solution3.value[i])


def test_every_optimal_move_keeps_the_value(space3: StateSpace, solution3: Solution) -> None:
    for i in np.flatnonzero(~space3.terminal):
        children = space3.next[i]
        moves = np.flatnonzero(solution3.optimal[i])
        assert moves.size > 0
        assert (solution3.value[children[moves]] == solution3.value[i]).all()
        others = np.setdiff1d(np.flatnonzero(children >= 0), moves)
        assert (solution3.value[children[others]] != solution3.value[i]).all()
        # best ⊆ optimal, and best moves shorten a win / prolong a loss
        assert not (solution3.best[i] & ~solution3.optimal[i]).any()
        best = np.flatnonzero(solution3.best[i])
        assert (solution3.depth[children[best]] == solution3.depth[i] - 1).all()


def test_wins_are_taken_fastest(solution3: Solution) -> None:
    # X to move can win at once on the top row; perfect play takes the immediate win.
    p = Position.from_string("XX./OO./...")
    assert solution3.best_moves(p) == (2,)
    assert 2 in solution3.optimal_moves(p)
    # O to move wins at once rather than blocking.
    assert solution3.best_moves(Position.from_string("XX./OO./X..")) == (5,)
    # O to move must block X's row to hold the draw.
    q = Position.from_string("XX./.O./...")
    assert solution3.optimal_moves(q) == (2,)
