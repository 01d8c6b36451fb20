"""Gumbel MuZero's search, with its noise off, in numpy: the search that trains AlphaZero,
as a function of the position, so that network agents with search (``az.npz:N``) can be
played, judged and proved without JAX.

AlphaZero trains with ``mctx.gumbel_muzero_policy``: at the root, Sequential Halving over
the ``considered`` moves of highest ``gumbel + logits + q``; below it, the deterministic
choice that brings the visit counts towards ``softmax(logits + completed q)``; Q-values
completed with the mixed value and scaled as ``qtransform_completed_by_mix_value`` does.
With ``gumbel_scale=0`` (mctx's evaluation setting for perfect-information games) nothing
in it is random. This module is that search, step for step and in float32, batched over
positions; ``tests/neural/test_gumbel_search.py`` checks that its visit counts and moves
equal mctx's, position by position.

One difference in form, none in result: mctx keeps expanding below a finished game (a
node whose every value is 0 and whose discount is 0), which changes no value above it;
here a simulation that reaches a finished game stops there.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tttlab.game import Geometry

__all__ = [
    "CONSIDERED",
    "SearchResult",
    "considered_visits",
    "gumbel_search",
    "play_considered",
]

#: mctx's default ``max_num_considered_actions``, which training uses.
CONSIDERED = 16
_F = np.float32
_MIN = np.finfo(np.float32).min
_TINY = np.finfo(np.float32).tiny

#: ``evaluate(boards, movers)`` → (logits (n, cells), values (n,)) from the mover's side.
Evaluate = Callable[
    [npt.NDArray[Any], npt.NDArray[Any]],
    tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
]


@dataclass(frozen=True)
class SearchResult:
    """The root of each search: the move chosen and the visit count of every move."""

    actions: npt.NDArray[np.int64]
    visits: npt.NDArray[np.int32]


def play_considered(simulations: int) -> int:
    """The moves that play-time search (``az.npz:N``) considers at the root: N // 2, at
    least 1 and at most :data:`CONSIDERED` (so 32 simulations consider training's 16).
    Sequential Halving then has simulations left after visiting each considered move once,
    and the move played is chosen among moves searched at least twice, each past its
    replies. Considering more, as many moves as simulations, the choice rests on one
    reading of the value head per move, and where that is wrong a few simulations lose
    what the raw network kept (4×4 k=4, docs/benchmarks.md). Below 4 simulations the
    search plays the policy's favourite, as the raw network does."""
    return max(1, min(CONSIDERED, simulations // 2))


def considered_visits(considered: int, simulations: int) -> tuple[int, ...]:
    """Sequential Halving's visit count of the moves still considered, simulation by
    simulation (mctx's ``get_sequence_of_considered_visits``)."""
    if considered <= 1:
        return tuple(range(simulations))
    log2max = math.ceil(math.log2(considered))
    sequence: list[int] = []
    visits = [0] * considered
    left = considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (log2max * left)))
        for _ in range(extra):
            sequence.extend(visits[:left])
            for i in range(left):
                visits[i] += 1
        left = max(2, left // 2)
    return tuple(sequence[:simulations])


def _softmax(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    result: npt.NDArray[np.float32] = e / e.sum(axis=-1, keepdims=True)
    return result


def _completed_q(
    q: npt.NDArray[np.float32],
    visits: npt.NDArray[np.int32],
    raw: npt.NDArray[np.float32],
    logits: npt.NDArray[np.float32],
    rescale: bool,
) -> npt.NDArray[np.float32]:
    """mctx's ``qtransform_completed_by_mix_value``, for rows of (q, visits) at nodes of
    raw value ``raw`` and prior ``logits``: unvisited moves get the mixed value, then all
    are rescaled to [0, 1] (``rescale``: mctx's ``rescale_values``) and scaled by (50 + the
    most visits) · 0.1."""
    seen = visits > 0
    total = visits.sum(axis=-1).astype(_F)
    prior = np.maximum(_TINY, _softmax(logits))
    mass = np.where(seen, prior, _F(0)).sum(axis=-1, keepdims=True)
    weighted = np.where(seen, prior * q / np.where(seen, mass, _F(1)), _F(0)).sum(axis=-1)
    mixed = (raw + total * weighted) / (total + _F(1))
    completed = np.where(seen, q, mixed[:, None])
    if rescale:
        low = completed.min(axis=-1, keepdims=True)
        high = completed.max(axis=-1, keepdims=True)
        completed = (completed - low) / np.maximum(high - low, _F(1e-8))
    scale = (_F(50) + visits.max(axis=-1).astype(_F)) * _F(0.1)
    result: npt.NDArray[np.float32] = scale[:, None] * completed
    return result


def _score_considered(
    considered_visit: npt.NDArray[Any],
    logits: npt.NDArray[np.float32],
    q: npt.NDArray[np.float32],
    visits: npt.NDArray[Any],
    invalid: npt.NDArray[np.bool_],
) -> npt.NDArray[np.int64]:
    """The root's move: the best ``logits + q`` among the moves visited exactly
    ``considered_visit`` times (mctx's ``score_considered`` and ``masked_argmax``)."""
    logits = logits - logits.max(axis=-1, keepdims=True)
    penalty = np.where(visits == considered_visit[:, None], _F(0), _F(-np.inf))
    score = np.maximum(_F(-1e9), logits + q) + penalty
    best: npt.NDArray[np.int64] = np.argmax(np.where(invalid, _F(-np.inf), score), axis=-1)
    return best


def gumbel_search(
    evaluate: Evaluate,
    geometry: Geometry,
    boards: npt.NDArray[Any],
    simulations: int,
    considered: int = CONSIDERED,
    rescale: bool = True,
) -> SearchResult:
    """``simulations`` simulations of Gumbel MuZero's search (no noise) from each of
    ``boards`` (n × cells of 0/1/2, open positions; the mover is read off the counts).
    ``rescale=False`` leaves the Q-values in the game's own [−1, 1] instead of stretching
    each node's between their minimum and maximum (mctx's ``rescale_values``)."""
    roots = np.asarray(boards, dtype=np.int8)
    n, cells = roots.shape
    nodes = simulations + 1
    rows = np.arange(n)
    table = np.array([considered_visits(m, simulations) for m in range(considered + 1)])

    board = np.zeros((n, nodes, cells), np.int8)
    mover = np.zeros((n, nodes), np.int8)
    ended = np.zeros((n, nodes), np.bool_)
    node_visits = np.zeros((n, nodes), np.int32)
    raw = np.zeros((n, nodes), _F)
    value = np.zeros((n, nodes), _F)
    child = np.full((n, nodes, cells), -1, np.int32)
    prior = np.zeros((n, nodes, cells), _F)
    child_value = np.zeros((n, nodes, cells), _F)
    child_visits = np.zeros((n, nodes, cells), np.int32)
    reward = np.zeros((n, nodes, cells), _F)
    discount = np.zeros((n, nodes, cells), _F)

    invalid = roots != 0
    movers = np.where((roots != 0).sum(axis=1) % 2 == 0, 1, 2).astype(np.int8)
    logits, v = evaluate(roots, movers)
    logits = np.asarray(logits, _F)
    logits = np.where(invalid, _MIN, logits - logits.max(axis=-1, keepdims=True)).astype(_F)
    board[:, 0], mover[:, 0] = roots, movers
    prior[:, 0], raw[:, 0], value[:, 0], node_visits[:, 0] = logits, v, v, 1
    considered_now = np.minimum(considered, (~invalid).sum(axis=1))

    def completed(b: npt.NDArray[Any], at: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
        q = reward[b, at] + discount[b, at] * child_value[b, at]
        return _completed_q(q, child_visits[b, at], raw[b, at], prior[b, at], rescale)

    for sim in range(simulations):
        path = np.zeros((n, cells + 2), np.int64)
        moves = np.zeros((n, cells + 1), np.int64)
        length = np.zeros(n, np.int64)  # edges walked
        going = np.ones(n, np.bool_)
        expand = np.zeros(n, np.bool_)
        depth = 0
        while going.any():
            b = rows[going]
            at = path[b, depth]
            visits = child_visits[b, at]
            q = completed(b, at)
            if depth == 0:
                want = table[considered_now[b], visits.sum(axis=-1)]
                action = _score_considered(want, prior[b, at], q, visits, invalid[b])
            else:
                total = (1 + visits.sum(axis=-1, keepdims=True)).astype(_F)
                score = _softmax(prior[b, at] + q) - visits.astype(_F) / total
                action = np.argmax(score, axis=-1)
            moves[b, depth] = action
            nxt = child[b, at, action]
            length[b] = depth + 1
            new = nxt < 0
            expand[b[new]] = True
            path[b, depth + 1] = np.where(new, sim + 1, nxt)
            stop = new | ended[b, np.maximum(nxt, 0)]
            going[b[stop]] = False
            depth += 1

        # Expand the new nodes: play the move, see whether it ends the game, ask the network.
        b = rows[expand]
        if len(b):
            parent = path[b, length[b] - 1]
            action = moves[b, length[b] - 1]
            who = mover[b, parent]
            after = board[b, parent].copy()
            after[np.arange(len(b)), action] = who
            won = geometry.completes_line(after, action, who)
            done = won | np.all(after != 0, axis=-1)
            at = sim + 1
            board[b, at], mover[b, at], ended[b, at] = after, 3 - who, done
            reward[b, parent, action] = np.where(won, _F(1), _F(0))
            discount[b, parent, action] = np.where(done, _F(0), _F(-1))
            child[b, parent, action] = at
            node_visits[b, at] = 1
            open_ = ~done
            if open_.any():
                logits, v = evaluate(after[open_], (3 - who)[open_])
                logits = np.asarray(logits, _F)
                prior[b[open_], at] = np.where(after[open_] == 0, logits, _MIN)
                raw[b[open_], at] = v
                value[b[open_], at] = v

        # Back up from each leaf (a new node, or a finished game reached again).
        leaf_value = value[rows, path[rows, length]]
        for d in range(int(length.max()) - 1, -1, -1):
            b = rows[length > d]
            parent, action, below = path[b, d], moves[b, d], path[b, d + 1]
            leaf_value[b] = reward[b, parent, action] + discount[b, parent, action] * leaf_value[b]
            count = node_visits[b, parent]
            value[b, parent] = (value[b, parent] * count.astype(_F) + leaf_value[b]) / (
                count.astype(_F) + _F(1)
            )
            node_visits[b, parent] = count + 1
            child_value[b, parent, action] = value[b, below]
            child_visits[b, parent, action] += 1

    visits = child_visits[:, 0]
    q = completed(rows, np.zeros(n, np.int64))
    best = visits.max(axis=-1)
    actions = _score_considered(best, prior[:, 0], q, visits, invalid)
    return SearchResult(actions=actions, visits=visits)
