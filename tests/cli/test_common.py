"""What every command shares (:mod:`tttlab.cli.common`): an output path that cannot be written
is refused in one line before any work; a number must be finite; ``--board`` and ``--k`` make
one board, past 39 cells for the proof search only."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from tests.cli.helpers import ttt
from tttlab.cli import main
from tttlab.cli.common import FiniteFloat, geometry_from
from tttlab.game import Geometry


def test_write_targets_that_cannot_be_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("x")
    for out in (tmp_path / "folder", tmp_path / "file" / "x.npz"):
        assert main(["train", "q", "--episodes", "10", "--out", str(out)]) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_train_into_an_unwritable_folder_is_one_line(tmp_path: Path) -> None:
    result = ttt("train", "q", "--episodes", "10", "--out", "/proc/x.npz")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "not writable" in result.stderr
    assert "internal error" not in result.stderr


def test_numbers_must_be_finite_and_boards_fit_their_use() -> None:
    seconds = FiniteFloat(min=0)
    assert seconds.convert("2.5", None, None) == 2.5
    for bad in ("nan", "inf", "-1"):
        with pytest.raises(click.BadParameter):
            seconds.convert(bad, None, None)
    assert geometry_from(None, None) == Geometry(3, 3, 3)
    assert geometry_from(Geometry(4, 4, 4), 3) == Geometry(4, 4, 3)
    with pytest.raises(click.BadParameter, match="does not fit"):
        geometry_from(Geometry(3, 3, 3), 4)
    big = Geometry(7, 6, 5)  # 42 cells: for the proof search only
    assert geometry_from(big, None, search=True) == big
    with pytest.raises(click.BadParameter, match="proof search only"):
        geometry_from(big, None)
