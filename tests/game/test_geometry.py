"""Board geometries (:mod:`tttlab.game.geometry`): names parsed and refused, the winning lines
and the symmetry group."""

from __future__ import annotations

import numpy as np
import pytest

from tttlab.game import Geometry, GeometryError


def test_geometry_parse_and_errors() -> None:
    assert Geometry.parse("3x3") == Geometry(3, 3, 3)
    assert Geometry.parse("4x4k4") == Geometry(4, 4, 4)
    assert Geometry.parse("3x4") == Geometry(3, 4, 3)
    assert Geometry.parse("4x4", k=3) == Geometry(4, 4, 3)
    assert Geometry(4, 4, 4).name == "4x4k4"
    for bad in ("3", "axb", "3x3k", ""):
        with pytest.raises(GeometryError, match="must look like"):
            Geometry.parse(bad)
    with pytest.raises(GeometryError, match="at least 1"):
        Geometry.parse("0x3")
    with pytest.raises(GeometryError, match="does not fit"):
        Geometry(3, 3, 4)
    with pytest.raises(GeometryError, match="says k=4"):
        Geometry.parse("4x4k4", k=3)
    with pytest.raises(GeometryError, match="at most 64 are supported"):
        Geometry(9, 8, 4)
    # past 39 cells a board exists for the proof search, but has no int64 state ids
    big = Geometry(8, 8, 5)
    assert big.line_masks.min() < 0  # cell 63 is the sign bit
    assert int(np.bitwise_or.reduce(big.line_masks)) == -1  # every cell on some line
    with pytest.raises(GeometryError, match="past 39 cells are for the proof search only"):
        big.weights  # noqa: B018
    Geometry(6, 6, 4).require_play_size()


def test_lines_of_standard_board() -> None:
    lines = set(Geometry(3, 3, 3).lines)
    assert len(lines) == 8
    assert (0, 4, 8) in lines
    assert (2, 4, 6) in lines
    assert len(Geometry(4, 4, 3).lines) == 24
    assert len(Geometry(3, 3, 1).lines) == 9


def test_symmetry_group_sizes() -> None:
    assert len(Geometry(3, 3, 3).symmetries) == 8
    assert len(Geometry(3, 4, 3).symmetries) == 4
    assert Geometry(3, 3, 3).symmetries[0] == tuple(range(9))
