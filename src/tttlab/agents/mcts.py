"""UCT Monte Carlo tree search for any board, compiled with numba.

The tree lives in flat arrays (one row per node). Each simulation descends by UCT, expands a
node by creating all its children, plays one rollout from the first new child and backs the
result up. Rollouts take an immediate win, else block an immediate loss, else play
uniformly at random. The move played is the most visited one.

In evaluation mode (``move_probabilities``) the search at a position uses a generator seeded
by the agent's seed and the position's id, so the agent is a fixed policy that exact
evaluation can judge; ``select_move`` searches with the generator it is given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numba as nb
import numpy as np
import numpy.typing as npt

from tttlab.agents.base import check_playable, uniform
from tttlab.errors import AgentError
from tttlab.game import Geometry, Position

__all__ = ["MCTSAgent"]


@nb.njit(cache=True, inline="always")
def _wins(
    bits: int, cell: int, lines: np.ndarray, through: np.ndarray, through_start: np.ndarray
) -> bool:
    for j in range(through_start[cell], through_start[cell + 1]):
        line = lines[through[j]]
        if bits & line == line:
            return True
    return False


@nb.njit(cache=True)
def _rollout(
    x: int,
    o: int,
    mover: int,
    full: int,
    cells: int,
    lines: np.ndarray,
    through: np.ndarray,
    through_start: np.ndarray,
    rng: np.random.Generator,
    free: np.ndarray,
) -> int:
    """Play to the end; +1 if X wins, −1 if O wins, 0 for a draw."""
    while True:
        occupied = x | o
        if occupied == full:
            return 0
        me = x if mover == 1 else o
        opp = o if mover == 1 else x
        count = 0
        win = -1
        block = -1
        for c in range(cells):
            bit = 1 << c
            if occupied & bit:
                continue
            free[count] = c
            count += 1
            if win < 0 and _wins(me | bit, c, lines, through, through_start):
                win = c
            if block < 0 and _wins(opp | bit, c, lines, through, through_start):
                block = c
        cell = win if win >= 0 else block if block >= 0 else free[int(rng.random() * count)]
        if mover == 1:
            x |= 1 << cell
        else:
            o |= 1 << cell
        if _wins((x if mover == 1 else o), cell, lines, through, through_start):
            return 1 if mover == 1 else -1
        mover = 3 - mover


@nb.njit(cache=True)
def _search(
    x0: int,
    o0: int,
    mover0: int,
    cells: int,
    lines: np.ndarray,
    through: np.ndarray,
    through_start: np.ndarray,
    simulations: int,
    c_uct: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Visit counts of the root's moves after ``simulations`` simulations."""
    full = (1 << cells) - 1
    cap = 1 + simulations * cells + cells
    xs = np.zeros(cap, dtype=np.int64)
    os_ = np.zeros(cap, dtype=np.int64)
    mover = np.zeros(cap, dtype=np.int8)
    first = np.full(cap, -1, dtype=np.int64)
    count = np.zeros(cap, dtype=np.int64)
    visits = np.zeros(cap, dtype=np.float64)
    value = np.zeros(cap, dtype=np.float64)  # for the side that moved into the node
    move = np.full(cap, -1, dtype=np.int64)
    result = np.full(cap, -2, dtype=np.int64)  # −2: not over; else X's result
    path = np.zeros(cells + 2, dtype=np.int64)
    free = np.zeros(cells, dtype=np.int64)
    xs[0], os_[0], mover[0] = x0, o0, mover0
    size = 1
    for _ in range(simulations):
        node = 0
        depth = 0
        path[0] = 0
        while True:
            if result[node] != -2:
                outcome = result[node]
                break
            if first[node] < 0:  # expand: create every child
                first[node] = size
                occupied = xs[node] | os_[node]
                m = mover[node]
                for c in range(cells):
                    bit = 1 << c
                    if occupied & bit:
                        continue
                    xs[size] = xs[node] | bit if m == 1 else xs[node]
                    os_[size] = os_[node] | bit if m == 2 else os_[node]
                    mover[size] = 3 - m
                    move[size] = c
                    own = xs[size] if m == 1 else os_[size]
                    if _wins(own, c, lines, through, through_start):
                        result[size] = 1 if m == 1 else -1
                    elif (xs[size] | os_[size]) == full:
                        result[size] = 0
                    size += 1
                count[node] = size - first[node]
            # choose a child: unvisited first, else the best UCT score
            best = -1.0
            chosen = -1
            log_n = math.log(max(visits[node], 1.0))
            for i in range(first[node], first[node] + count[node]):
                if visits[i] == 0:
                    score = 1e9 + rng.random()
                else:
                    score = value[i] / visits[i] + c_uct * math.sqrt(log_n / visits[i])
                if score > best:
                    best = score
                    chosen = i
            node = chosen
            depth += 1
            path[depth] = node
            if visits[node] == 0:
                if result[node] != -2:
                    outcome = result[node]
                else:
                    outcome = _rollout(
                        xs[node],
                        os_[node],
                        mover[node],
                        full,
                        cells,
                        lines,
                        through,
                        through_start,
                        rng,
                        free,
                    )
                break
        for d in range(depth + 1):
            n = path[d]
            visits[n] += 1.0
            into = 3 - mover[n]  # the side that moved into this node
            if outcome == 0:
                value[n] += 0.5
            elif (outcome == 1) == (into == 1):
                value[n] += 1.0
    counts = np.zeros(cells, dtype=np.float64)
    for i in range(first[0], first[0] + count[0]):
        counts[move[i]] = visits[i]
    return counts


class MCTSAgent:
    """UCT Monte Carlo tree search.

    Args:
        geometry: the board.
        simulations: simulations per move.
        exploration: the UCT constant c in Q + c·sqrt(ln N / n).
        seed: seeds the evaluation-mode search (see the module docstring).

    Examples:
        >>> from tttlab.game import Geometry, Position
        >>> agent = MCTSAgent(Geometry(), simulations=500)
        >>> list(agent.move_probabilities(Position.from_string("XX./OO./...")))   # a win in one
        [2]
    """

    #: Its evaluation-mode search is seeded by the position, but it plays with the
    #: generator it is given: a move outside its move probabilities is always possible.
    deterministic = False

    def __init__(
        self, geometry: Geometry, simulations: int = 1000, exploration: float = 1.4, seed: int = 0
    ) -> None:
        if simulations < 1:
            raise AgentError(f"simulations must be at least 1, got {simulations}")
        if not (math.isfinite(exploration) and exploration >= 0):
            raise AgentError(f"exploration must be a finite number >= 0, got {exploration}")
        self.geometry = geometry
        self.simulations = simulations
        self.exploration = exploration
        self.seed = seed
        self._lines = geometry.line_masks
        index = {ln: i for i, ln in enumerate(geometry.lines)}
        through: list[int] = []
        start = [0]
        for c in range(geometry.cells):
            through.extend(index[ln] for ln in geometry.lines_through[c])
            start.append(len(through))
        self._through = np.array(through, dtype=np.int64)
        self._start = np.array(start, dtype=np.int64)
        self._cache: dict[int, dict[int, float]] = {}

    @property
    def name(self) -> str:
        return f"mcts({self.simulations})"

    def visit_counts(self, position: Position, rng: np.random.Generator) -> npt.NDArray[np.float64]:
        """Visits of each cell's move after one search (zeros for illegal cells)."""
        check_playable(self.geometry, position)
        x, o = position.bitboards
        counts: npt.NDArray[np.float64] = _search(
            x,
            o,
            int(position.to_move),
            self.geometry.cells,
            self._lines,
            self._through,
            self._start,
            self.simulations,
            self.exploration,
            rng,
        )
        return counts

    def _best(self, counts: npt.NDArray[np.float64]) -> list[int]:
        return [int(m) for m in np.flatnonzero(counts == counts.max())]

    def move_probabilities(self, position: Position) -> Mapping[int, float]:
        cached = self._cache.get(position.id)
        if cached is None:
            rng = np.random.default_rng([self.seed, position.id])
            cached = uniform(self._best(self.visit_counts(position, rng)))
            if len(self._cache) > 200_000:
                self._cache.clear()
            self._cache[position.id] = cached
        return cached

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        best = self._best(self.visit_counts(position, rng))
        return best[0] if len(best) == 1 else best[int(rng.integers(len(best)))]

    def move_values(self, position: Position) -> Mapping[int, float] | None:
        """Share of the simulations spent on each move (the search's preference)."""
        counts = self.visit_counts(position, np.random.default_rng([self.seed, position.id]))
        total = counts.sum()
        return {int(m): float(counts[m] / total) for m in position.legal_moves}
