"""The independent references that tttlab's compiled enumerator and solver are tested
against: plain numpy, layer by layer (slow and memory-hungry on 4×4). Test code only."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tttlab.game import Geometry, StateSpace, state_space
from tttlab.game.statespace import _CHUNK, check_enumerable, decode
from tttlab.solvers.table import shrink


def winners(boards: npt.NDArray[np.int8], geometry: Geometry) -> npt.NDArray[np.int8]:
    """0, 1 (X) or 2 (O) for each row of a boards array."""
    lines = np.asarray(geometry.lines, dtype=np.intp)
    out = np.zeros(boards.shape[0], dtype=np.int8)
    for start in range(0, boards.shape[0], _CHUNK):
        chunk = boards[start : start + _CHUNK][:, lines]  # (n, L, k)
        o_wins = (chunk == 2).all(axis=2).any(axis=1)
        x_wins = (chunk == 1).all(axis=2).any(axis=1)
        out[start : start + _CHUNK] = np.where(x_wins, 1, np.where(o_wins, 2, 0))
    return out


def reference_state_space(geometry: Geometry) -> StateSpace:
    """The plain numpy enumerator, layer by layer (slow and memory-hungry on 4×4): kept as
    the independent reference that the compiled one is tested against.

    """
    check_enumerable(geometry)
    n = geometry.cells
    w = geometry.weights
    layers = [np.zeros(1, dtype=np.int64)]
    for ply in range(n):
        current = layers[-1]
        mover = 1 if ply % 2 == 0 else 2
        children = []
        for start in range(0, current.shape[0], _CHUNK):
            ids = current[start : start + _CHUNK]
            boards = decode(ids, geometry)
            alive = winners(boards, geometry) == 0
            ids, boards = ids[alive], boards[alive]
            empty = boards == 0
            children.append((ids[:, None] + w[None, :] * mover)[empty])
        layer = np.unique(np.concatenate(children)) if children else np.zeros(0, np.int64)
        if layer.size == 0:
            break
        layers.append(layer)

    ids = np.sort(np.concatenate(layers))
    boards = decode(ids, geometry)
    winner = winners(boards, geometry)
    ply = (boards != 0).sum(axis=1).astype(np.int8)
    terminal = (winner != 0) | (ply == n)
    x_count = (boards == 1).sum(axis=1)
    o_count = (boards == 2).sum(axis=1)
    to_move = np.where(x_count > o_count, 2, 1).astype(np.int8)

    nxt = np.full((ids.shape[0], n), -1, dtype=np.int32)
    step = w[None, :] * to_move[:, None].astype(np.int64)
    for start in range(0, ids.shape[0], _CHUNK):
        sl = slice(start, start + _CHUNK)
        child = ids[sl, None] + step[sl]
        legal = (boards[sl] == 0) & ~terminal[sl, None]
        where = np.searchsorted(ids, child[legal])
        if not np.array_equal(ids[where], child[legal]):  # pragma: no cover - internal check
            raise RuntimeError("state enumeration is not closed under moves")
        block = nxt[sl]
        block[legal] = where
        nxt[sl] = block

    canon_id = ids.copy()
    which = np.zeros(ids.shape[0], dtype=np.int8)
    for k, perm in enumerate(geometry.symmetries):
        for start in range(0, ids.shape[0], _CHUNK):
            sl = slice(start, start + _CHUNK)
            image = boards[sl][:, list(perm)].astype(np.int64) @ w
            better = image < canon_id[sl]
            canon_id[sl] = np.where(better, image, canon_id[sl])
            which[sl] = np.where(better, k, which[sl])
    canonical = np.searchsorted(ids, canon_id).astype(np.int32)

    arrays = (ids, nxt, terminal, winner, ply, canonical)
    for a in arrays:
        a.setflags(write=False)
    space = StateSpace(geometry, *arrays)
    space.__dict__["to_move"] = to_move  # fill the lazy tables with the reference's own
    space.__dict__["symmetry"] = which
    for a in (to_move, which):
        a.setflags(write=False)
    return space


def reference_solve(
    geometry: Geometry,
) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Scores, optimal and best moves by plain numpy backward induction, layer by layer: the
    independent reference for the compiled solver's tests."""
    space = state_space(geometry)
    big = geometry.cells + 1
    n = space.size
    score = np.zeros(n, dtype=np.int16)
    score[space.winner == 1] = big
    score[space.winner == 2] = -big
    optimal = np.zeros((n, geometry.cells), dtype=np.bool_)
    best = np.zeros((n, geometry.cells), dtype=np.bool_)
    for ply in range(int(space.ply.max()), -1, -1):
        layer = np.flatnonzero((space.ply == ply) & ~space.terminal)
        if layer.size == 0:
            continue
        children = space.next[layer]
        legal = children >= 0
        child_score = shrink(score[np.where(legal, children, 0)])
        x_moves = ply % 2 == 0  # X moves on even plies
        fill = np.int16(-2 * big if x_moves else 2 * big)
        masked = np.where(legal, child_score, fill)
        chosen = masked.max(axis=1) if x_moves else masked.min(axis=1)
        score[layer] = chosen
        best[layer] = legal & (masked == chosen[:, None])
        optimal[layer] = legal & (np.sign(masked) == np.sign(chosen)[:, None])
    return score, optimal, best
