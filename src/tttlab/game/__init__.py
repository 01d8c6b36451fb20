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
    check_enumerable,
    estimate_positions,
    state_space,
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
    "canonical_id",
    "cells_from_id",
    "check_enumerable",
    "estimate_positions",
    "id_of",
    "state_space",
]
