"""The disk cache of the compiled tables (``tttlab.game.tablecache``). Each test uses a cache
folder of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from tests.cli.helpers import ttt
from tttlab.game import Geometry, tablecache
from tttlab.game.compiled import TABLE_FORMAT


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
