"""The rules: geometry, frozen positions, ids, symmetries and the reachable state space."""

from tttlab.game.geometry import DEFAULT, Geometry, GeometryError
from tttlab.game.position import (
    IllegalMoveError,
    Outcome,
    Player,
    Position,
    PositionError,
    canonical_id,
    cells_from_id,
    id_of,
)
from tttlab.game.statespace import (
    StateSpace,
    StateSpaceTooLarge,
    TableLayout,
    check_enumerable,
    estimate_positions,
    state_space,
    table_layout,
)

__all__ = [
    "DEFAULT",
    "Geometry",
    "GeometryError",
    "IllegalMoveError",
    "Outcome",
    "Player",
    "Position",
    "PositionError",
    "StateSpace",
    "StateSpaceTooLarge",
    "TableLayout",
    "canonical_id",
    "cells_from_id",
    "check_enumerable",
    "estimate_positions",
    "id_of",
    "state_space",
    "table_layout",
]
