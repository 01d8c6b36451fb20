"""Compiled training loops (numba) over the dense state-space arrays.

Each function runs a batch of episodes in place on the value tables. They read like the
textbook: ``Q[s, a] += alpha * (target - Q[s, a])`` and ``V[s] += alpha * (V[s'] - V[s])``.

Conventions shared by every kernel:
- ``nxt[s, a]`` is the position after move ``a`` (−1 if illegal); ``winner[s]`` is 0/1/2;
- tables are indexed by row ``crow[s]`` and, for Q, column ``pinv[sym[s], a]``: with
  symmetry-reduced tables all symmetric positions share the row of their representative and
  a move reads the cell it becomes there; without, ``crow`` is the identity;
- Q tables hold values from X's side: X picks the largest, O the smallest (the seed's
  formulation), so one table serves both seats;
- ``learn`` says which seats learn (bit 1: X, bit 2: O); a seat that does not learn is played
  by ``opponent[s, a]``, a table of move probabilities;
- every random number comes from the ``numpy.random.Generator`` passed in, whose state the
  kernels advance, so a run split into batches equals one run in a single batch;
- ``schedule`` rows are (kind, start, end) for ε and α: kind 0 constant, 1 linear,
  2 exponential, interpolated over ``total`` episodes.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from tttlab import schedules
from tttlab.numbacache import cacheable

Q_LEARNING, SARSA, EXPECTED_SARSA, DOUBLE_Q = 0, 1, 2, 3

#: The modules whose functions are compiled into these kernels, with digests of their text:
#: numba's cache knows only this file's (:mod:`tttlab.numbacache`; tests/test_numbacache.py
#: checks them).
COMPILED_FROM = {"tttlab.schedules": "c79abf385d0c2256"}
CACHE = cacheable(COMPILED_FROM)


#: A schedule's value at an episode: the one formula of :mod:`tttlab.schedules`,
#: compiled.
scheduled = nb.njit(cache=CACHE, inline="always")(schedules.scheduled)


@nb.njit(cache=CACHE, inline="always")
def reward(winner: int) -> float:
    """Terminal reward from X's side."""
    if winner == 1:
        return 1.0
    if winner == 2:
        return -1.0
    return 0.0


@nb.njit(cache=CACHE)
def random_legal(nxt: np.ndarray, s: int, rng: np.random.Generator) -> int:
    count = 0
    for a in range(nxt.shape[1]):
        if nxt[s, a] >= 0:
            count += 1
    pick = int(rng.random() * count)
    for a in range(nxt.shape[1]):
        if nxt[s, a] >= 0:
            if pick == 0:
                return a
            pick -= 1
    return -1


@nb.njit(cache=CACHE)
def sample_row(nxt: np.ndarray, probs: np.ndarray, s: int, rng: np.random.Generator) -> int:
    """A move drawn from a row of a fixed opponent's probability table."""
    u = rng.random()
    last = -1
    for a in range(probs.shape[1]):
        p = probs[s, a]
        if p > 0.0 and nxt[s, a] >= 0:
            last = a
            if u < p:
                return a
            u -= p
    return last


@nb.njit(cache=CACHE)
def scan(
    qa: np.ndarray,
    qb: np.ndarray,
    both: bool,
    nxt: np.ndarray,
    s: int,
    row: int,
    pinv: np.ndarray,
    k: int,
    sign: float,
    ties: np.ndarray,
) -> tuple[float, int, float]:
    """One pass over the legal moves of ``s`` (table row ``row``, move a at column
    ``pinv[k, a]``): the best ``sign * q`` (on ``qa + qb`` when ``both``), the moves tied
    for it (written to ``ties``) and the mean of ``q``."""
    best = -np.inf
    count = 0
    total = 0.0
    legal = 0
    for a in range(nxt.shape[1]):
        if nxt[s, a] < 0:
            continue
        c = pinv[k, a]
        value = qa[row, c] + qb[row, c] if both else qa[row, c]
        total += value
        legal += 1
        best, count = track_best(sign * value, a, best, ties, count)
    return sign * best, count, total / legal


@nb.njit(cache=CACHE, inline="always")
def track_best(
    value: float, a: int, best: float, ties: np.ndarray, count: int
) -> tuple[float, int]:
    """Fold move ``a``, worth ``value``, into the running best and the list of its ties."""
    if value > best:
        ties[0] = a
        return value, 1
    if value == best:
        ties[count] = a
        return best, count + 1
    return best, count


@nb.njit(cache=CACHE, inline="always")
def pick_tie(ties: np.ndarray, count: int, rng: np.random.Generator) -> int:
    """Uniform among tied moves; a single best move needs no random draw."""
    if count == 1:
        return int(ties[0])
    return int(ties[int(rng.random() * count)])


@nb.njit(cache=CACHE)
def q_family_episodes(
    algo: int,
    Q: np.ndarray,
    nxt: np.ndarray,
    terminal: np.ndarray,
    winner: np.ndarray,
    to_move: np.ndarray,
    crow: np.ndarray,
    sym: np.ndarray,
    pinv: np.ndarray,
    learn: int,
    opponent: np.ndarray,
    gamma: float,
    schedule: np.ndarray,
    first: int,
    count: int,
    total: int,
    rng: np.random.Generator,
) -> None:
    """Run episodes ``first .. first + count - 1`` of Q-learning, SARSA, Expected SARSA or
    Double Q-learning (``algo``), updating ``Q`` (shape 1 or 2 × N × cells) in place.

    A step runs from one learning decision to the next. In self-play (both seats learn)
    that is one ply, and the target bootstraps from the other seat's choice: X maximises,
    O minimises, as in the seed. Against a fixed opponent a step spans the opponent's reply.
    At each learning decision the side to move picks its ε-greedy move ``a`` and the pending
    step ``(ps, pa)`` is updated with

    - Q-learning: ``target = γ · best_a' Q(s, a')``
    - SARSA: ``target = γ · Q(s, a)``
    - Expected SARSA: ``target = γ · ((1 − ε) best + ε · mean_a' Q(s, a'))``
    - Double Q: one table (at random) picks ``a* = argbest`` of its own values, the other
      values it: ``target = γ · Q_other(s, a*)``

    and at the end of the game ``target = reward`` (+1 X wins, −1 O wins, 0 draw).
    """
    double = algo == DOUBLE_Q
    qa = Q[0]
    qb = Q[1] if double else Q[0]
    ties = np.empty(nxt.shape[1], dtype=np.int64)
    for t in range(first, first + count):
        eps = scheduled(int(schedule[0, 0]), schedule[0, 1], schedule[0, 2], t, total)
        alpha = scheduled(int(schedule[1, 0]), schedule[1, 1], schedule[1, 2], t, total)
        s = 0
        pr = -1  # the pending step, as its table cell (row, column), waiting for its target
        pc = -1
        while True:
            side = to_move[s]
            if (learn >> (side - 1)) & 1:
                sign = 1.0 if side == 1 else -1.0
                row = crow[s]
                k = sym[s]
                best, tied, mean = scan(qa, qb, double, nxt, s, row, pinv, k, sign, ties)
                explore = rng.random() < eps
                a = random_legal(nxt, s, rng) if explore else pick_tie(ties, tied, rng)
                if pr >= 0:
                    if algo == Q_LEARNING:
                        target = gamma * best
                        qa[pr, pc] += alpha * (target - qa[pr, pc])
                    elif algo == SARSA:
                        target = gamma * qa[row, pinv[k, a]]
                        qa[pr, pc] += alpha * (target - qa[pr, pc])
                    elif algo == EXPECTED_SARSA:
                        target = gamma * ((1.0 - eps) * best + eps * mean)
                        qa[pr, pc] += alpha * (target - qa[pr, pc])
                    else:  # Double Q: one table, at random, picks; the other values the pick
                        own, other = (qa, qb) if rng.random() < 0.5 else (qb, qa)
                        _, tied, _ = scan(own, own, False, nxt, s, row, pinv, k, sign, ties)
                        pick = pick_tie(ties, tied, rng)
                        target = gamma * other[row, pinv[k, pick]]
                        own[pr, pc] += alpha * (target - own[pr, pc])
                pr = row
                pc = pinv[k, a]
            else:
                a = sample_row(nxt, opponent, s, rng)
            s2 = nxt[s, a]
            if terminal[s2]:
                if pr >= 0:
                    target = reward(winner[s2])
                    if double and rng.random() >= 0.5:
                        qb[pr, pc] += alpha * (target - qb[pr, pc])
                    else:
                        qa[pr, pc] += alpha * (target - qa[pr, pc])
                break
            s = s2


@nb.njit(cache=CACHE)
def td_episodes(
    V: np.ndarray,
    nxt: np.ndarray,
    terminal: np.ndarray,
    winner: np.ndarray,
    to_move: np.ndarray,
    crow: np.ndarray,
    learn: int,
    opponent: np.ndarray,
    draw_reward: float,
    schedule: np.ndarray,
    first: int,
    count: int,
    total: int,
    rng: np.random.Generator,
) -> None:
    """The course's TD(0) value learner: ``V[seat, s]`` is seat's value of position s.

    Each learning seat moves ε-greedily to the afterstate it values most. After the episode,
    each learning seat sweeps backwards over every position of the game:
    ``V(s) ← V(s) + α (V(s') − V(s))``, with the final reward (1 win, ``draw_reward`` draw,
    0 loss) as the last target.
    """
    cells = nxt.shape[1]
    history = np.empty(cells + 1, dtype=np.int64)
    ties = np.empty(cells, dtype=np.int64)
    for t in range(first, first + count):
        eps = scheduled(int(schedule[0, 0]), schedule[0, 1], schedule[0, 2], t, total)
        alpha = scheduled(int(schedule[1, 0]), schedule[1, 1], schedule[1, 2], t, total)
        s = 0
        length = 0
        while not terminal[s]:
            side = to_move[s]
            if (learn >> (side - 1)) & 1:
                if rng.random() < eps:
                    a = random_legal(nxt, s, rng)
                else:
                    a = best_afterstate(V[side - 1], nxt, crow, s, rng, ties)
            else:
                a = sample_row(nxt, opponent, s, rng)
            s = nxt[s, a]
            history[length] = crow[s]  # the table row of the position reached
            length += 1
        w = winner[s]
        for seat in range(2):
            if not (learn >> seat) & 1:
                continue
            v = V[seat]
            if w == seat + 1:
                target = 1.0
            elif w == 0:
                target = draw_reward
            else:
                target = 0.0
            for i in range(length - 1, -1, -1):
                prev = history[i]
                v[prev] += alpha * (target - v[prev])
                target = v[prev]


@nb.njit(cache=CACHE)
def best_afterstate(
    v: np.ndarray,
    nxt: np.ndarray,
    crow: np.ndarray,
    s: int,
    rng: np.random.Generator,
    ties: np.ndarray,
) -> int:
    """The move to the afterstate with the highest ``v``, ties broken uniformly."""
    best = -np.inf
    count = 0
    for a in range(nxt.shape[1]):
        s2 = nxt[s, a]
        if s2 < 0:
            continue
        best, count = track_best(v[crow[s2]], a, best, ties, count)
    return pick_tie(ties, count, rng)
