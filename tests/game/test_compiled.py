"""The compiled enumerator against the plain numpy one, its derived tables, and the disk cache."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.cli.helpers import ttt
from tests.references import reference_solve, reference_state_space
from tttlab.game import Geometry, state_space, tablecache
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


# The disk cache. Each test uses a cache folder of its own.


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TTTLAB_CACHE_DIR", str(tmp_path))
    return tmp_path


G = Geometry(3, 4, 3)


def test_cache_is_written_keyed_by_board_and_table_format(cache: Path) -> None:
    arrays = tablecache.load_or_build(G)
    path = tablecache.cache_path(G)
    assert path == cache / "tables" / f"v{TABLE_FORMAT}" / "3x4k3.npz"
    assert path.exists()
    # no temporary left, only the build lock
    assert sorted(p.name for p in path.parent.iterdir()) == [".3x4k3.npz.lock", "3x4k3.npz"]
    again = tablecache.load_or_build(G)
    for name in arrays:
        assert np.array_equal(arrays[name], again[name])
    with np.load(path, allow_pickle=False) as archive:
        header = json.loads(str(archive["header"][()]))
    assert header["board"] == "3x4k3"
    assert header["table_format"] == TABLE_FORMAT


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


_BUILDER = """
import sys, time
import tttlab.game.compiled as compiled
from tttlab.game import Geometry, tablecache

real = compiled.build_tables
def counted(geometry):
    with open(sys.argv[1], "a") as log:
        log.write("built\\n")
    time.sleep(1.0)  # long enough for the others to find the table missing
    return real(geometry)
compiled.build_tables = counted
arrays = tablecache.load_or_build(Geometry(3, 4, 3))
print(int(arrays["ids"].shape[0]), int(arrays["next"].sum()))
"""


def test_processes_that_miss_the_same_table_build_it_once(cache: Path) -> None:
    log = cache / "builds.log"
    env = {**os.environ, "TTTLAB_CACHE_DIR": str(cache)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _BUILDER, str(log)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(3)
    ]
    answers = [proc.communicate(timeout=120) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), answers
    assert log.read_text().splitlines() == ["built"]  # one built, two waited and read
    assert len({out for out, _ in answers}) == 1
    assert answers[0][0].split()[0] == "111973"


def test_the_temporary_of_a_killed_table_writer_is_removed(cache: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    folder = cache / "tables" / f"v{TABLE_FORMAT}"
    folder.mkdir(parents=True)
    stale = folder / f".3x4k3.npz.{dead}.abcd1234.tmp"
    stale.write_bytes(b"half of a very large table")
    tablecache.load_or_build(G)
    assert not stale.exists()
    assert (folder / "3x4k3.npz").exists()


def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "flip":
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    elif how == "truncate":
        path.write_bytes(bytes(data[: len(data) // 3]))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "garbage":
        path.write_bytes(b"not a zip file at all")
    elif how == "pickle":
        np.savez(path, header=np.array([{"a": 1}], dtype=object))


@pytest.mark.parametrize("how", ["flip", "truncate", "empty", "garbage", "pickle"])
def test_a_damaged_cache_is_rebuilt_with_one_warning(cache: Path, how: str) -> None:
    good = tablecache.load_or_build(G)
    path = tablecache.cache_path(G)
    assert path is not None
    _damage(path, how)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rebuilt = tablecache.load_or_build(G)
    assert len(caught) == 1
    assert issubclass(caught[0].category, tablecache.TableCacheWarning)
    assert "damaged" in str(caught[0].message)
    for name in good:
        assert np.array_equal(good[name], rebuilt[name])
    with warnings.catch_warnings():  # and the rebuilt file is good again
        warnings.simplefilter("error")
        tablecache.load_or_build(G)


def test_a_cache_of_another_board_or_format_is_not_trusted(cache: Path) -> None:
    tablecache.load_or_build(Geometry(3, 3, 3))
    other = tablecache.cache_path(Geometry(3, 3, 3))
    target = tablecache.cache_path(G)
    assert other is not None
    assert target is not None
    target.write_bytes(other.read_bytes())  # 3×3 tables under 3×4's name
    with pytest.warns(tablecache.TableCacheWarning, match="damaged"):
        arrays = tablecache.load_or_build(G)
    assert arrays["ids"].shape[0] == 111_973


def test_cache_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TTTLAB_CACHE_DIR", "off")
    assert tablecache.cache_dir() is None
    assert tablecache.load_or_build(Geometry(2, 2, 2))["ids"].shape[0] == 29


def test_an_unwritable_cache_warns_and_still_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("TTTLAB_CACHE_DIR", str(blocker))
    with pytest.warns(tablecache.TableCacheWarning, match="could not write"):
        arrays = tablecache.load_or_build(Geometry(2, 2, 2))
    assert arrays["ids"].shape[0] == 29


def test_cli_says_one_line_about_a_damaged_cache(tmp_path: Path) -> None:
    env = {"TTTLAB_CACHE_DIR": str(tmp_path)}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        first = ttt("solve", "--board", "3x4", "--positions", "--json")
        assert first.returncode == 0, first.stderr
        path = next((tmp_path / "tables").rglob("3x4k3.npz"))
        _damage(path, "flip")
        second = ttt("solve", "--board", "3x4", "--positions", "--json")
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert second.returncode == 0
    assert json.loads(second.stdout)["positions"] == 111_973
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1, second.stderr
    assert lines[0].startswith("ttt: warning: table cache")
    assert "rebuilding" in lines[0]
