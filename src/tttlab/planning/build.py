"""Tic-tac-toe against a fixed opponent as a Markov decision process.

States are the positions where the learning seat is to move, reachable from the start,
reduced by the board's symmetries (when the opponent's policy is symmetric too), plus three
absorbing states: draw, win and loss (in that order, last). An action is a cell of the
state's representative board. After the seat's move (the afterstate) the opponent answers
with its policy's probabilities, which gives P(s' | s, a). Rewards are paid on entering a
state: by default +1 for the win state, −1 for the loss state and 0 otherwise.

Each action's transition matrix is an S × S ``scipy.sparse`` CSR matrix. Illegal actions are
masked out by default (``legal`` is False; their rows hold a self-loop so that every row is
stochastic). With ``soft_constraint`` they keep that self-loop and get the seed's reward of −10,
so solvers that need every action defined can work on the export.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from tttlab.game import Geometry, Player, StateSpace

__all__ = ["DRAW", "LOSS", "MDP", "WIN", "RewardScheme", "build_mdp"]

DRAW, WIN, LOSS = 0, 1, 2  # offsets of the absorbing states after the decision states
RewardScheme = Literal["standard", "time-greedy"]
SOFT_CONSTRAINT_REWARD = -10.0
#: The seed's time-greedy rewards: every move costs 1, a win pays 10.
TIME_GREEDY_STEP, TIME_GREEDY_WIN = -1.0, 10.0


@dataclass(frozen=True, eq=False)
class MDP:
    """A finite MDP over S states and A = cells actions.

    Attributes:
        space: the state space of the board.
        seat: the side that decides.
        P: one S × S CSR matrix per action.
        R: S × A expected rewards.
        legal: S × A, which actions are real moves.
        positions: S − 3 state-space indices of the decision states' representatives.
        start: probability of starting in each state (the opponent's first move when the
            seat is O).
        state_of: for every state-space index, its MDP state (−1 if none).
        symmetric: whether states were reduced by the board's symmetries.
        soft_constraint: whether illegal actions carry the −10 self-loop reward.
    """

    space: StateSpace
    seat: Player
    P: tuple[sp.csr_matrix, ...]
    R: npt.NDArray[np.float64]
    legal: npt.NDArray[np.bool_]
    positions: npt.NDArray[np.int64]
    start: npt.NDArray[np.float64]
    state_of: npt.NDArray[np.int64]
    symmetric: bool
    soft_constraint: bool
    rewards: RewardScheme

    @property
    def n_states(self) -> int:
        return int(self.R.shape[0])

    @property
    def n_actions(self) -> int:
        return int(self.R.shape[1])

    @property
    def terminal_states(self) -> tuple[int, int, int]:
        """Indices of the draw, win and loss states."""
        base = self.n_states - 3
        return base + DRAW, base + WIN, base + LOSS

    def dense(self) -> npt.NDArray[np.float64]:
        """P in the seed's dense layout: S × S × A, float64."""
        return np.stack([m.toarray() for m in self.P], axis=2)

    def export_dense(self, path: str | Path) -> None:
        """An ``.npz`` with the dense ``P`` (S × S × A), ``R`` (S × A), ``legal`` and ``ids``
        (the representative position id of each state; −1, −2, −3 for draw, win, loss)."""
        np.savez_compressed(path, P=self.dense(), R=self.R, legal=self.legal, ids=self._ids())

    def export_sparse(self, path: str | Path) -> None:
        """An ``.npz`` with each action's CSR arrays (``P{a}_data``, ``P{a}_indices``,
        ``P{a}_indptr``), ``shape``, ``R``, ``legal`` and ``ids``."""
        arrays: dict[str, npt.NDArray[np.generic]] = {
            "shape": np.array([self.n_states, self.n_states, self.n_actions]),
            "R": self.R,
            "legal": self.legal,
            "ids": self._ids(),
        }
        for a, m in enumerate(self.P):
            arrays[f"P{a}_data"] = m.data
            arrays[f"P{a}_indices"] = m.indices
            arrays[f"P{a}_indptr"] = m.indptr
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    def _ids(self) -> npt.NDArray[np.int64]:
        return np.concatenate([self.space.ids[self.positions], np.array([-1, -2, -3])])


def _is_symmetric(
    space: StateSpace, policy: npt.NDArray[np.float64], rows: npt.NDArray[np.intp]
) -> bool:
    """Does the opponent play symmetric positions symmetrically?"""
    perms = [np.array(p) for p in space.geometry.symmetries]
    canon = space.canonical[rows]
    which = space.symmetry[rows]
    for i, c, k in zip(rows, canon, which, strict=True):
        # policy at the representative, seen in this position's frame: cell perm[a] ↔ a.
        if not np.allclose(policy[i][perms[k]], policy[c], atol=1e-12):
            return False
    return True


def build_mdp(
    space: StateSpace,
    seat: Player,
    opponent: npt.NDArray[np.float64],
    *,
    rewards: RewardScheme = "standard",
    soft_constraint: bool = False,
    use_symmetry: bool = True,
) -> MDP:
    """Build the MDP of ``seat`` against an opponent given as an N × cells table of move
    probabilities (rows where the opponent moves)."""
    g: Geometry = space.geometry
    cells = g.cells
    mine = int(seat)
    opp_rows = space.decisions(3 - mine)
    symmetric = use_symmetry and _is_symmetric(space, opponent, opp_rows)

    def rep(i: int) -> int:
        return int(space.canonical[i]) if symmetric else i

    # Start distribution over representative decision positions.
    start_positions: dict[int, float] = {}
    if mine == 1:
        start_positions[rep(0)] = 1.0
    else:
        for b in np.flatnonzero(opponent[0] > 0):
            child = int(space.next[0, b])
            start_positions[rep(child)] = start_positions.get(rep(child), 0.0) + opponent[0, b]

    # Discover the decision states breadth-first and record transitions.
    order: list[int] = []
    index: dict[int, int] = {}
    frontier = sorted(start_positions)
    for r in frontier:
        index[r] = len(order)
        order.append(r)
    rows_by_action: list[list[tuple[int, int, float]]] = [[] for _ in range(cells)]
    head = 0
    # Terminal targets are resolved after all decision states are known.
    pending_terminal: list[tuple[int, int, int, float]] = []  # (state, action, kind, prob)
    while head < len(order):
        s = head
        pos = order[head]
        head += 1
        for a in range(cells):
            after = int(space.next[pos, a])
            if after < 0:
                continue
            if space.terminal[after]:
                kind = WIN if space.winner[after] == mine else DRAW
                pending_terminal.append((s, a, kind, 1.0))
                continue
            for b in np.flatnonzero(opponent[after] > 0):
                p = float(opponent[after, b])
                reply = int(space.next[after, b])
                if space.terminal[reply]:
                    kind = DRAW if space.winner[reply] == 0 else LOSS
                    pending_terminal.append((s, a, kind, p))
                    continue
                r = rep(reply)
                if r not in index:
                    index[r] = len(order)
                    order.append(r)
                rows_by_action[a].append((s, index[r], p))

    n_dec = len(order)
    S = n_dec + 3
    for s, a, kind, p in pending_terminal:
        rows_by_action[a].append((s, n_dec + kind, p))

    legal = np.zeros((S, cells), dtype=np.bool_)
    positions = np.array(order, dtype=np.int64)
    legal[:n_dec] = space.next[positions] >= 0
    entry = np.zeros(S)  # reward for entering each state
    if rewards == "standard":
        entry[n_dec + WIN] = 1.0
        entry[n_dec + LOSS] = -1.0
    else:
        entry[:] = TIME_GREEDY_STEP
        entry[n_dec + WIN] = TIME_GREEDY_WIN

    matrices = []
    R = np.zeros((S, cells))
    for a in range(cells):
        triples = rows_by_action[a]
        r_idx = [t[0] for t in triples]
        c_idx = [t[1] for t in triples]
        vals = [t[2] for t in triples]
        # Illegal actions and the absorbing states loop on themselves.
        loops = np.flatnonzero(~legal[:, a])
        r_idx.extend(loops.tolist())
        c_idx.extend(loops.tolist())
        vals.extend([1.0] * loops.size)
        m = sp.csr_matrix((vals, (r_idx, c_idx)), shape=(S, S))
        m.sum_duplicates()
        matrices.append(m)
        R[:, a] = m @ entry
        R[n_dec:, a] = 0.0  # nothing more happens once the game is over
        illegal = ~legal[:n_dec, a]
        R[:n_dec, a][illegal] = SOFT_CONSTRAINT_REWARD if soft_constraint else 0.0

    start = np.zeros(S)
    for r, p in start_positions.items():
        start[index[r]] += p
    state_of = np.full(space.size, -1, dtype=np.int64)
    decision = space.decisions(mine)
    reps = space.canonical[decision] if symmetric else decision
    state_of[decision] = [index.get(int(r), -1) for r in reps]
    return MDP(
        space,
        seat,
        tuple(matrices),
        R,
        legal,
        positions,
        start,
        state_of,
        symmetric,
        soft_constraint,
        rewards,
    )
