"""What is wrong with what the box read from the MDP text's module (:mod:`.mdp`), in one
sentence each: the first wrong entry, expected against got, with the state's board.

A state is known by its row of the student's ``state_id_lkt`` (:func:`decode`): type 0 is a
position where X is to move, on the board of the row's id (the student's representative of
its class: an action is a cell of that board), type 1 a terminal state whose second column
says which (0 draw, 1 win, 2 loss).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .base import grid
from .mdp_truth import (
    ENDS,
    SCHEME_WORDS,
    SCHEMES,
    after,
    board_of_id,
    canonical,
    entry,
    is_decision,
    mdp_truth,
)

__all__ = [
    "TOLERANCE",
    "Finding",
    "count_finding",
    "decode",
    "fraction",
    "named",
    "scheme_of",
    "state_finding",
]

#: How far an entry may be from the exact one: P and R are sums of a few fractions;
#: the values of an iteration are compared more loosely (the student's stopping rule).
TOLERANCE = {"P": 1e-9, "R": 1e-9, "iteration": 1e-6}


@dataclass(frozen=True)
class Finding:
    """What is wrong, in one sentence, and the board to draw ("" for none)."""

    text: str
    board: str = ""


def fraction(p: float) -> str:
    """``0.142857...`` → ``"1/7 (0.142857)"`` (a probability as a uniform O makes it)."""
    near = Fraction(p).limit_denominator(5040)
    if abs(float(near) - p) > 1e-12 or near.denominator == 1:
        return f"{p:.6g}"
    return f"{near} ({p:.6g})"


def decode(row: list[int] | None) -> tuple[str, str, str]:
    """A row of ``state_id_lkt`` as (key, board, what is wrong with it): the key is a
    canonical board or ``draw``/``win``/``loss``; the board is the row's own ("" when
    terminal)."""
    if row is None:
        return "", "", "it is not three integers"
    kind, who, board_id = row
    if kind == 1:
        if who not in (0, 1, 2):
            return "", "", "a terminal row's second column must be 0 (draw), 1 (win) or 2 (loss)"
        return ENDS[who], "", ""
    if kind != 0:
        return "", "", "its type must be 0 (X to move) or 1 (terminal)"
    board = board_of_id(board_id)
    if board is None:
        return "", "", f"{board_id} is no board id (0 to {3**9 - 1})"
    if not is_decision(board):
        return "", "", f"board {grid(board)} is not a position where X is to move"
    return canonical(board), board, ""


def named(s: int, key: str, board: str) -> str:
    return f"state {s} ({grid(board)})" if board else f"state {s} (the {key} state)"


def count_finding(value: list[Any]) -> Finding | None:
    rows, decisions, terminals, dims_p, dims_r = value
    mdp = mdp_truth()
    n = mdp.states
    if (rows, decisions, terminals) != (n, mdp.decisions, 3):
        return Finding(
            f"state_id_lkt lists {rows} states ({decisions} where X moves, {terminals} "
            f"terminal); expected {n} ({mdp.decisions} + draw, win, loss)"
        )
    if dims_p != [n, n, 9]:
        return Finding(f"P is {' x '.join(map(str, dims_p)) or 'empty'}, expected {n} x {n} x 9")
    if dims_r != [n, 9]:
        return Finding(f"R is {' x '.join(map(str, dims_r)) or 'empty'}, expected {n} x 9")
    return None


def _distribution(
    s: int, a: int, action: list[Any], rows: dict[int, list[int] | None]
) -> tuple[dict[str, float], dict[str, str], str]:
    """The student's ``P[s, :, a]`` over keys, each key's name, and what is wrong with it
    ("" when it can be read)."""
    entries, count, _ = action
    got: dict[str, float] = {}
    names: dict[str, str] = {}
    if count > len(entries):
        return got, names, f"{count} nonzero entries"
    for t, p in entries:
        if p < 0:
            return got, names, f"P[{s}, {t}, {a}] = {p:g} is negative"
        if t not in rows or rows[t] is None:
            return got, names, f"state {t} has no row in state_id_lkt"
        key, board, trouble = decode(rows[t])
        if trouble:
            return got, names, f"state {t} is none: state_id_lkt[{t}] = {rows[t]}: {trouble}"
        got[key] = got.get(key, 0.0) + p
        names.setdefault(key, named(t, key, board))
    return got, names, ""


def state_finding(function: str, s: int, value: list[Any]) -> Finding | None:
    """The first wrong entry of ``P[s, :, :]`` (``function`` "P") or ``R[s, :]`` ("R")."""
    row, back, actions, targets = value[:4]
    key, board, trouble = decode(row)
    if trouble:
        return Finding(f"state_id_lkt[{s}] = {row}: {trouble}")
    place = f"s = {s} ({grid(board)})" if board else f"s = {s} (the {key} state)"
    if function == "P" and back is not None and board and back != s:
        return Finding(
            f"id_state_lkt gives state {back} for board {row[2]}, the board of state {s}", board
        )
    if len(actions) != 9:
        return Finding(f"P[{s}] has {len(actions)} actions, expected 9", board)
    rows: dict[int, list[int] | None] = {t: r for t, r in targets}
    if function == "R":
        return _rewards(s, key, board, place, actions, rows, value[4])
    tol = TOLERANCE["P"]
    for a, action in enumerate(actions):
        at = f"P[{s}, :, {a}] for {place} and a = {a}"
        got, names, trouble = _distribution(s, a, action, rows)
        if trouble:
            return Finding(f"{at}: {trouble}", board)
        if abs(action[2] - 1.0) > tol:
            return Finding(f"{at} sums to {action[2]:.9g}, not 1: not stochastic", board)
        if key in ENDS or board[a] != ".":
            why = "a terminal state absorbs" if key in ENDS else f"cell {a} is taken: stay put"
            if [[t, p] for t, p in action[0]] != [[s, 1.0]]:
                listed = ", ".join(f"{p:.6g} to state {t}" for t, p in action[0])
                return Finding(f"{at}: expected 1 to state {s} itself ({why}), got {listed}", board)
            continue
        wanted = after(board, a)
        for k in [*wanted, *(k for k in got if k not in wanted)]:
            if abs(got.get(k, 0.0) - wanted.get(k, 0.0)) > tol:
                name = names.get(k) or (f"the {k} state" if k in ENDS else f"position {grid(k)}")
                return Finding(
                    f"{at}: {got.get(k, 0.0):.6g} to {name}, expected "
                    f"{fraction(wanted.get(k, 0.0))} (X plays {a}, then O uniformly)",
                    board,
                )
    return None


def _rewards(
    s: int,
    key: str,
    board: str,
    place: str,
    actions: list[Any],
    rows: dict[int, list[int] | None],
    rewards: list[float],
) -> Finding | None:
    if len(rewards) != 9:
        return Finding(f"R[{s}] has {len(rewards)} entries, expected 9", board)
    tol = TOLERANCE["R"]
    if key in ENDS:
        for a, v in enumerate(rewards):
            if abs(v) > tol:
                return Finding(f"R[{s}, {a}] = {v:.6g} for {place}: expected 0 (the game is over)")
        return None
    for a, v in enumerate(rewards):
        if board[a] != "." and not v < -tol:
            return Finding(
                f"R[{s}, {a}] = {v:.6g} for {place} and a = {a}: expected a negative reward "
                f"(the soft constraint: cell {a} is taken)",
                board,
            )
    wanted: dict[str, list[float]] = {}
    for scheme in SCHEMES:
        wanted[scheme] = []
        for a, action in enumerate(actions):
            if board[a] != ".":
                wanted[scheme].append(rewards[a])  # any negative reward (above)
                continue
            got, _, trouble = _distribution(s, a, action, rows)
            distribution = got if not trouble else after(board, a)  # P's own fault
            wanted[scheme].append(sum(p * entry(k, scheme) for k, p in distribution.items()))
    wrong = {
        scheme: [a for a in range(9) if abs(rewards[a] - wanted[scheme][a]) > tol]
        for scheme in SCHEMES
    }
    scheme = min(SCHEMES, key=lambda name: len(wrong[name]))  # standard on a tie
    if not wrong[scheme]:
        return None
    a = wrong[scheme][0]
    return Finding(
        f"R[{s}, {a}] = {rewards[a]:.6g} for {place} and a = {a}: expected "
        f"{wanted[scheme][a]:.6g}, the sum over s' of P[{s}, s', {a}] times the "
        f"reward of entering s' ({SCHEME_WORDS[scheme]})",
        board,
    )


def scheme_of(top: float | None) -> str:
    """The text's rewards that R holds: time-greedy when an entry is above 1 (a win's +10;
    the standard rewards never pass 1), else standard."""
    return "time-greedy" if top is not None and top > 1.0 + TOLERANCE["R"] else "standard"
