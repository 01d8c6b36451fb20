"""Alpha-beta agrees with the solver's table on every reachable position."""

from __future__ import annotations

import numpy as np
import pytest

from tttlab.game import Geometry, Position, StateSpace
from tttlab.solvers import AlphaBeta, Solution, solve_table


def _x_side(score: float, p: Position) -> float:
    return score * p.to_move.sign


def test_agrees_with_table_everywhere(space3: StateSpace, solution3: Solution) -> None:
    search = AlphaBeta(space3.geometry)
    for i in np.flatnonzero(~space3.terminal):
        p = space3.position(int(i))
        result = search.search(p)
        assert result.exact
        assert _x_side(result.score, p) == int(solution3.score[i])
        assert set(result.best_moves) == set(np.flatnonzero(solution3.best[i]).tolist())
        for move, score in result.move_scores.items():
            child = int(space3.next[i, move])
            expected = int(solution3.score[child])
            # the child's score seen from the mover, one ply further
            seen = expected * p.to_move.sign
            assert score == (seen - 1 if seen > 0 else seen + 1 if seen < 0 else 0)


def test_fresh_searches_without_shared_table_agree(space3: StateSpace, solution3: Solution) -> None:
    rng = np.random.default_rng(7)
    for i in rng.choice(np.flatnonzero(~space3.terminal), size=200, replace=False):
        p = space3.position(int(i))
        assert _x_side(AlphaBeta(space3.geometry).search(p).score, p) == int(solution3.score[i])


def test_value_on_3x4() -> None:
    g = Geometry(3, 4, 3)
    result = AlphaBeta(g).search(Position.initial(g))
    assert result.value == 1
    assert set(result.best_moves) == set(solve_table(g).best_moves(Position.initial(g)))
    assert result.nodes > 0


def test_depth_limit_uses_heuristic_and_reports_nodes() -> None:
    g = Geometry(4, 4, 4)
    result = AlphaBeta(g, max_depth=2).search(Position.initial(g))
    assert not result.exact
    assert -1 < result.score < 1
    assert result.nodes > 0
    assert set(result.move_scores) == set(range(16))


def test_depth_limited_search_still_sees_forced_wins() -> None:
    g = Geometry(4, 4, 4)
    p = Position.from_string("XXX./OOO./..../....", g)
    assert AlphaBeta(g, max_depth=1).search(p).best_moves == (3,)


def test_refuses_finished_game_and_bad_depth() -> None:
    with pytest.raises(ValueError, match="over"):
        AlphaBeta(Geometry()).search(Position.from_string("XXX/OO./..."))
    with pytest.raises(ValueError, match="depth"):
        AlphaBeta(Geometry(), max_depth=0)
