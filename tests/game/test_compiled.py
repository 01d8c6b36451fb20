"""The compiled enumerator against the plain numpy one, and its derived tables (the disk cache:
tests/game/test_tablecache.py)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.references import reference_solve, reference_state_space
from tttlab.game import Geometry, state_space
from tttlab.game.compiled import TABLE_FORMAT, build_tables
from tttlab.solvers import solve_table

FIELDS = ("ids", "next", "terminal", "winner", "to_move", "ply", "canonical", "symmetry", "boards")


@st.composite
def small_geometries(draw: st.DrawFn) -> Geometry:
    rows = draw(st.integers(1, 4))
    cols = draw(st.integers(1, 4 if rows < 4 else 3))
    k = draw(st.integers(1, max(rows, cols)))
    return Geometry(rows, cols, k)


def _same(a: object, b: object) -> None:
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        assert x.shape == y.shape, name
        assert np.array_equal(x, y), name


@settings(max_examples=40, deadline=None)
@given(small_geometries())
def test_compiled_equals_reference(geometry: Geometry) -> None:
    """Same arrays, same order, same dtypes, on every small board."""
    tables = build_tables(geometry)
    reference = reference_state_space(geometry)
    for name, array in tables.items():
        assert np.array_equal(array, getattr(reference, name)), name
    _same(state_space(geometry), reference)


# (4×4 k=4's game tree is pinned to its known counts in test_four_by_four_counts.)
@pytest.mark.parametrize("geometry", [Geometry(3, 3, 3), Geometry(3, 4, 3), Geometry(2, 5, 2)])
def test_game_tree_by_classes_equals_path_counts(geometry: Geometry) -> None:
    space = state_space(geometry)
    paths = space.path_counts()
    draws = space.terminal & (space.winner == 0)
    assert space.game_tree() == {
        "nodes": int(paths.sum()),
        "games": int(paths[space.terminal].sum()),
        "x_wins": int(paths[space.winner == 1].sum()),
        "o_wins": int(paths[space.winner == 2].sum()),
        "draws": int(paths[draws].sum()),
    }
    counts = space.counts()
    assert counts["classes"] == np.unique(space.canonical).size
    assert counts["open_classes"] == np.unique(space.canonical[~space.terminal]).size
    assert counts["terminal"] == int(space.terminal.sum())
    assert counts["x_wins"] + counts["o_wins"] + counts["draws"] == counts["terminal"]


@pytest.mark.parametrize("geometry", [Geometry(3, 3, 3), Geometry(3, 4, 3), Geometry(2, 3, 2)])
def test_compiled_solver_equals_layered_reference(geometry: Geometry) -> None:
    solution = solve_table(geometry)
    score, optimal, best = reference_solve(geometry)
    assert np.array_equal(solution.score, score)
    assert np.array_equal(solution.optimal, optimal)
    assert np.array_equal(solution.best, best)
    for i in range(0, solution.space.size, 97):
        assert solution.value_at(i) == int(solution.value[i])
        assert solution.depth_at(i) == int(solution.depth[i])
        assert solution.row_moves(i) == tuple(np.flatnonzero(optimal[i]))
        assert solution.row_moves(i, best=True) == tuple(np.flatnonzero(best[i]))


@pytest.mark.slow
def test_four_by_four_counts() -> None:
    """4×4 k=4 with the compiled tables: counts measured with the numpy enumerator."""
    space = state_space(Geometry(4, 4, 4))
    assert space.size == 9_722_011
    assert space.counts() == {
        "terminal": 659_392,
        "x_wins": 401_096,
        "o_wins": 252_940,
        "draws": 5_356,
        "classes": 1_217_977,
        "open_classes": 1_135_214,
    }
    assert space.game_tree() == {
        "nodes": 36_277_691_063_105,
        "games": 15_038_733_958_272,
        "x_wins": 3_225_291_101_568,
        "o_wins": 3_106_180_802_304,
        "draws": 8_707_262_054_400,
    }
    assert solve_table(Geometry(4, 4, 4)).value_at(0) == 0


#: A digest of the enumerator's output on several boards, for each table format. If this
#: test fails, the tables changed: raise TABLE_FORMAT (so that no cache serves the old
#: ones) and record the new digest under the new number.
DIGESTS = {2: "54a475c2c0f15dd08177339894510801"}


def _digest() -> str:
    digest = hashlib.sha256()
    for board in ("3x3k3", "3x4k3", "2x2k2", "1x5k3", "3x3k2", "2x3k2"):
        arrays = build_tables(Geometry.parse(board))
        for name in sorted(arrays):
            digest.update(f"{board}/{name}/{arrays[name].dtype}".encode())
            digest.update(np.ascontiguousarray(arrays[name]).tobytes())
    return digest.hexdigest()[:32]


def test_the_table_format_is_tied_to_the_enumerators_output() -> None:
    assert DIGESTS.get(TABLE_FORMAT) == _digest()
