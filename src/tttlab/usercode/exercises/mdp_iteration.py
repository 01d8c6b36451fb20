"""What is wrong with what a student's value or policy iteration returned (the MDP text, seed
004; the box's side is :mod:`tttlab.usercode.boxside.shapes.mdp_call`), in one sentence, and
the note that names how it was called and read.

The values must be the optimal values of the text's MDP under the rewards that R holds: its
scheme, and its soft constraint (any negative reward for an infeasible move; where it is
too weak to forbid staying put, the optimum stays put, :func:`~.mdp_truth.optimum`), within
:data:`~.mdp_judge.TOLERANCE`; the policy, evaluated exactly, must be optimal in every state.
What came back is told apart by what it holds (:func:`split`): a vector of integers is a
policy, and so is a vector of floats that holds a cell of each state's board (the text's
authors keep their policy in ``np.zeros(S)``); the first other vector is the values. A
function that takes no discount is judged undiscounted (gamma 1, the episodic game), or at
0.9 when its values are those.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .base import grid
from .mdp_judge import TOLERANCE, Finding, decode, named, scheme_of
from .mdp_truth import ENDS, GAMMAS, SCHEME_WORDS, evaluate, mdp_truth, optimum, staying

__all__ = ["iteration_finding", "iteration_notes", "split"]

Decoded = list[tuple[str, str, str]]
#: Each state's row of R as the box read it (None where it could not be read).
Rewards = list[list[float | None] | None]
#: Where the student's soft constraint is weakest in each position: key → (reward, s, a).
Stays = dict[str, tuple[float, int, int]]


def _policy_like(numbers: list[float], decoded: Decoded) -> bool:
    """Whether ``numbers`` holds a cell (an integer from 0 to 8) for every position."""
    return all(
        key in ENDS or (numbers[s].is_integer() and 0 <= numbers[s] < 9)
        for s, (key, _, _) in enumerate(decoded)
    )


def _legal(numbers: list[float], decoded: Decoded) -> bool:
    """Whether ``numbers`` plays an empty cell of every position's board."""
    return _policy_like(numbers, decoded) and all(
        key in ENDS or board[int(numbers[s])] == "." for s, (key, board, _) in enumerate(decoded)
    )


def split(
    parts: list[list[Any]], decoded: Decoded
) -> tuple[list[float] | None, list[float] | None, list[str]]:
    """The values and the policy among the vectors that came back (None where none), and
    what each vector was taken for (``"values"``, ``"policy"``, ``""`` left out)."""
    n = len(decoded)
    taken = [""] * len(parts)
    sized = [i for i, (_, numbers) in enumerate(parts) if len(numbers) == n]
    policies = [i for i in sized if parts[i][0]]
    floats = [i for i in sized if not parts[i][0]]
    if not policies:
        like = [i for i in floats if _policy_like(parts[i][1], decoded)]
        legal = [i for i in like if _legal(parts[i][1], decoded)]
        if legal or (like and len(like) < len(floats)) or len(like) > 1:
            policies = (legal or like)[:1]
    for i in policies[:1]:
        taken[i] = "policy"
    rest = [i for i in floats if not taken[i]]
    for i in rest[:1]:
        taken[i] = "values"
    values = parts[rest[0]][1] if rest else None
    policy = parts[policies[0]][1] if policies else None
    return values, policy, taken


def _line(rewards: Rewards, s: int) -> list[float | None]:
    """``R[s]`` as the box read it: nine numbers or None (where it could not be read)."""
    line = rewards[s] if s < len(rewards) else None
    return line if line is not None and len(line) == 9 else [None] * 9


def _stays(decoded: Decoded, rewards: Rewards) -> Stays:
    """The largest reward of an infeasible move (a taken cell) in each position, the
    student's soft constraint there, with the state and the action that hold it."""
    found: Stays = {}
    for s, (key, board, _) in enumerate(decoded):
        if key in ENDS or not board:
            continue
        for a, c in enumerate(_line(rewards, s)):
            if board[a] != "." and c is not None and (key not in found or c > found[key][0]):
                found[key] = (c, s, a)
    return found


def _top(decoded: Decoded, rewards: Rewards) -> float | None:
    """The largest reward of a feasible move (which of the text's schemes R holds)."""
    found = [
        c
        for s, (_, board, _) in enumerate(decoded)
        if board
        for a, c in enumerate(_line(rewards, s))
        if board[a] == "." and c is not None
    ]
    return max(found) if found else None


def iteration_finding(name: str, gamma: float, value: list[Any]) -> Finding | None:
    """The first wrong value, or the first state where the policy is not optimal; for a
    function that takes no discount, at the first of gamma 1 and 0.9 where none is."""
    if value[0] == "unfilled":
        _, signature, parameter = value
        return Finding(
            f"{signature}: cannot tell what its parameter {parameter} is (the check gives, "
            "by their names: the discount, initial values, an initial policy, a tolerance, "
            "a number of sweeps, the number of states or of actions)"
        )
    rows = value[0]
    decoded = [decode(r) for r in rows]
    for s, (_, _, trouble) in enumerate(decoded):
        if trouble:
            return Finding(f"state_id_lkt[{s}] = {rows[s]}: {trouble} (see the P check)")
    if value[3][1]:
        return _judged(gamma, value, decoded)
    found = [_judged(g, value, decoded) for g in sorted(GAMMAS, reverse=True)]
    wrong = [f for f in found if f is not None]
    if len(wrong) < len(found):
        return None
    return Finding(f"{wrong[0].text} (it takes no discount: judged undiscounted)", wrong[0].board)


@dataclass(frozen=True)
class _Goal:
    """What the values must be at one discount: the scheme R holds, the optimal values
    (those that stay put where R's soft constraint is too weak to forbid it), the words
    that say so, how far a value may be from them, how the soft constraint is too weak (""
    when it is not), and what is wrong where no values are optimal (a positive soft
    constraint at gamma 1). Where the optimum stays put, value iteration converges only
    geometrically, and a stopping rule of the same tolerance leaves up to tol / (1 - gamma)."""

    scheme: str
    best: dict[str, float]
    words: str
    tolerance: float = TOLERANCE["iteration"]
    weak: str = ""
    trouble: Finding | None = None


def _goal(decoded: Decoded, rewards: Rewards, gamma: float) -> _Goal:
    scheme = scheme_of(_top(decoded, rewards))
    stays = _stays(decoded, rewards)
    best = mdp_truth().values[(scheme, gamma)]
    tol = TOLERANCE["iteration"]
    weak = [(k, c, s, a) for k, (c, s, a) in stays.items() if staying(c, gamma) > best[k] + tol]
    words = f"{SCHEME_WORDS[scheme]}, as R holds"
    if not weak:
        return _Goal(scheme, best, words)
    _, c, s, a = min(weak, key=lambda w: w[2])
    worth = staying(c, gamma)
    if math.isinf(worth):
        trouble = Finding(
            f"R[{s}, {a}] = {c:g} rewards an infeasible move: at gamma {gamma:g} staying "
            "put is worth infinity, and no values are optimal (the soft constraint must "
            "be negative: see the R check)",
            decoded[s][1],
        )
        return _Goal(scheme, best, words, trouble=trouble)
    weakness = (
        f"R's soft constraint is too weak to forbid staying put at gamma {gamma:g} (in state "
        f"{s}, R[{s}, {a}] = {c:g} forever is worth {worth:.6g})"
    )
    best = optimum({k: c for k, (c, _, _) in stays.items()}, scheme, gamma)
    loose = tol / (1.0 - gamma) if gamma < 1.0 else tol
    return _Goal(scheme, best, f"{words}; {weakness}", loose, weakness)


def _judged(gamma: float, value: list[Any], decoded: Decoded) -> Finding | None:
    _, parts, rewards, _ = value
    n = len(decoded)
    values, policy, _ = split(parts, decoded)
    if values is None and policy is None:
        lengths = ", ".join(str(len(p[1])) for p in parts) or "none"
        return Finding(
            f"returned no vector over the {n} states (values or a policy; lengths: {lengths})"
        )
    goal = _goal(decoded, rewards, gamma)
    if goal.trouble is not None:
        return goal.trouble
    best = goal.best
    if values is not None:
        for s, (k, board, _) in enumerate(decoded):
            if not abs(values[s] - best[k]) <= goal.tolerance:  # nan too
                return Finding(
                    f"V[{s}] = {values[s]:.9g} for {named(s, k, board)}: expected "
                    f"{best[k]:.9g} (tttlab's exact value at gamma {gamma:g}, {goal.words})",
                    board,
                )
    if policy is None:
        return None
    return _policy(policy, decoded, rewards, gamma, goal)


def _policy(
    policy: list[float],
    decoded: Decoded,
    rewards: Rewards,
    gamma: float,
    goal: _Goal,
) -> Finding | None:
    """The first state where the policy plays no cell, or a taken one where staying put is
    not optimal, or where following it is worth less than the best."""
    best, tol = goal.best, goal.tolerance
    moves: dict[str, tuple[str, int]] = {}
    stay: dict[str, float] = {}
    first: dict[str, int] = {}
    for s, (k, board, _) in enumerate(decoded):
        if k in ENDS or k in moves:
            continue
        a = policy[s]
        if not (a.is_integer() and 0 <= a < 9):
            return Finding(f"policy[{s}] = {a:g} for {named(s, k, board)}: no cell", board)
        cell = int(a)
        if board[cell] != ".":
            c = _line(rewards, s)[cell]
            if c is None or not staying(c, gamma) >= best[k] - tol:
                return Finding(
                    f"policy[{s}] = {cell} for {named(s, k, board)}: that cell is taken", board
                )
            stay[k] = c
        moves[k] = (board, cell)
        first[k] = s
    missing = [k for k in mdp_truth().keys if k not in moves]
    if missing:
        return Finding(f"no state in state_id_lkt for position {grid(missing[0])} (see P)")
    worth = evaluate(moves, goal.scheme, gamma, stay)
    short = [k for k in moves if worth[k] < best[k] - tol]
    if not short:
        return None
    k = min(short, key=first.__getitem__)
    s, board = first[k], moves[k][0]
    return Finding(
        f"following the policy from {named(s, k, board)} (it plays {moves[k][1]}) is worth "
        f"{worth[k]:.9g}, the best is {best[k]:.9g} (exact evaluation at gamma {gamma:g}, "
        f"{goal.words})",
        board,
    )


def iteration_notes(gamma: float, value: list[Any]) -> list[str]:
    """How an iteration was called and read, where that is not ``f(P, R, gamma)`` returning
    ``(values, policy)``: what each other parameter got, a discount it does not take, what
    came back; and a soft constraint too weak to forbid staying put at ``gamma``. None
    where the states cannot be read."""
    if value[0] == "unfilled":
        return []
    rows, parts, rewards, (signature, discounted, filled, form) = value
    decoded = [decode(r) for r in rows]
    if any(trouble for _, _, trouble in decoded):
        return []
    given = ", ".join(f"{parameter} given {what}" for parameter, what in filled)
    said = [given] if given else []
    if not discounted:
        right = [g for g in sorted(GAMMAS, reverse=True) if _judged(g, value, decoded) is None]
        gamma = (right or [1.0])[0]
        said.append(f"it takes no discount: judged at gamma {gamma:g}")
    taken = [t for t in split(parts, decoded)[2] if t]
    if taken != ["values", "policy"] or not form.startswith(("a tuple", "a list")):
        shown = ", then ".join(f"the {t}" for t in taken) or "no vector over the states"
        said.append(f"returned {shown} ({form}; told apart by what they hold)")
    notes = [f"{signature}: {'; '.join(said)}"] if said else []
    weak = _goal(decoded, rewards, gamma).weak
    if weak:
        notes.append(f"{weak}: judged by the optimum, which stays put there")
    return notes
