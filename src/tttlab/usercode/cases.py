"""The exercise's check space and its truth, from tttlab's own rules and solver.

Every board reachable from the empty board by legal play (5,478 of them; 958 terminal and
4,520 decisions), in the order the checker reports them: the earliest in the game first,
and among boards of the same ply the most likely in a game between two random players.
That makes the first counterexample of each check the most instructive one.

Boards travel as 9-character strings of ``X``, ``O`` and ``.``; an action as a cell index.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np
import numpy.typing as npt

from tttlab.game import Geometry, state_space

__all__ = ["ExerciseTruth", "exercise_truth"]

_SYMBOLS = ".XO"


def _random_reach(
    space_next: npt.NDArray[np.int32], ply: npt.NDArray[np.int8]
) -> npt.NDArray[np.float64]:
    """Each position's probability in a game between two uniformly random players."""
    reach = np.zeros(len(ply))
    reach[0] = 1.0
    for p in range(int(ply.max())):
        rows = np.flatnonzero(ply == p)
        children = space_next[rows]
        legal = children >= 0
        counts = legal.sum(axis=1)
        rows, children, legal, counts = (
            rows[counts > 0],
            children[counts > 0],
            legal[counts > 0],
            counts[counts > 0],
        )
        flow = np.repeat(reach[rows] / counts, counts)
        np.add.at(reach, children[legal], flow)
    return reach


@dataclass(frozen=True)
class ExerciseTruth:
    """The boards in report order, and what the exercise's functions must give on each.

    Attributes:
        boards: each board as ``"X.O.X...O"``.
        ply: marks on the board.
        terminal, winner ("X", "O" or "."), to_move ("X" or "O"; "." when terminal).
        utility: +1 X won, −1 O won, 0 otherwise.
        legal: the empty cells of each decision board (empty tuple when terminal).
        child: ``child[i][move]`` the board after ``move``.
        optimal: the moves that keep the game value, per decision board.
        value: the game value of each board from X's side.
        reach: the probability of each board between two random players.
    """

    boards: tuple[str, ...]
    ply: tuple[int, ...]
    terminal: tuple[bool, ...]
    winner: tuple[str, ...]
    to_move: tuple[str, ...]
    utility: tuple[int, ...]
    legal: tuple[tuple[int, ...], ...]
    child: tuple[dict[int, str], ...]
    optimal: tuple[frozenset[int], ...]
    value: tuple[int, ...]
    reach: tuple[float, ...]
    where: dict[str, int] = field(compare=False, repr=False)

    @property
    def size(self) -> int:
        return len(self.boards)

    def index(self, board: str) -> int:
        """Where ``board`` is in report order."""
        return self.where[board]

    def decisions(self) -> list[int]:
        return [i for i in range(self.size) if not self.terminal[i]]

    def terminals(self) -> list[int]:
        return [i for i in range(self.size) if self.terminal[i]]


@cache
def exercise_truth() -> ExerciseTruth:
    """The 3×3 check space (computed once per process, in about 0.1 s)."""
    from tttlab.solvers import solve_table  # numba's kernels: loaded by the checks that ask

    geometry = Geometry(3, 3, 3)
    space = state_space(geometry)
    solution = solve_table(geometry)
    reach = _random_reach(space.next, space.ply)
    order = np.lexsort((-reach, space.ply))
    cells = space.boards
    text = ["".join(_SYMBOLS[c] for c in row) for row in cells.tolist()]
    to_move = space.to_move
    optimal = solution.optimal
    boards, ply, terminal, winner, mover, utility = [], [], [], [], [], []
    legal, child, best, value, chance = [], [], [], [], []
    for i in order.tolist():
        boards.append(text[i])
        ply.append(int(space.ply[i]))
        end = bool(space.terminal[i])
        terminal.append(end)
        w = int(space.winner[i])
        winner.append(_SYMBOLS[w])
        mover.append("." if end else _SYMBOLS[int(to_move[i])])
        utility.append({0: 0, 1: 1, 2: -1}[w])
        moves = () if end else tuple(int(m) for m in np.flatnonzero(space.next[i] >= 0))
        legal.append(moves)
        child.append({m: text[int(space.next[i, m])] for m in moves})
        best.append(
            frozenset(int(m) for m in np.flatnonzero(optimal[i])) if not end else frozenset()
        )
        value.append(int(solution.value[i]))
        chance.append(float(reach[i]))
    return ExerciseTruth(
        tuple(boards),
        tuple(ply),
        tuple(terminal),
        tuple(winner),
        tuple(mover),
        tuple(utility),
        tuple(legal),
        tuple(child),
        tuple(best),
        tuple(value),
        tuple(chance),
        {b: i for i, b in enumerate(boards)},
    )
