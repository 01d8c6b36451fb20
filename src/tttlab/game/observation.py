"""The observation every tttlab adapter gives a policy: two planes per position, the
mover's own marks and the opponent's, shaped as the board (``rows, cols, 2``, int8).

The Gymnasium and PettingZoo environments, and the exact judge asking a policy from any
library, all use this one definition.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tttlab.game.geometry import Geometry

__all__ = ["planes_of"]


def planes_of(
    cells: npt.ArrayLike, side: npt.ArrayLike, geometry: Geometry
) -> npt.NDArray[np.int8]:
    """Observations of boards ``cells`` (``[..., cells]``, 0 empty, 1 X, 2 O) for ``side``
    (1 X, 2 O; one per board, or one for all): ``[..., rows, cols, 2]``.

    >>> planes_of([1, 0, 2, 0, 0, 0, 0, 0, 0], 2, Geometry(3, 3, 3))[0].tolist()
    [[0, 1], [0, 0], [1, 0]]
    """
    board = np.asarray(cells, dtype=np.int8)
    mine = np.asarray(side, dtype=np.int8)[..., None]
    own = board == mine
    other = (board != 0) & ~own
    stacked = np.stack([own, other], axis=-1).astype(np.int8)
    return stacked.reshape(*board.shape[:-1], geometry.rows, geometry.cols, 2)
