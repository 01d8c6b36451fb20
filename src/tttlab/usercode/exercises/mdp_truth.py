"""The MDP text's MDP (seed 004), exactly, on the grader's side: X against a uniformly random
O, states the positions where X is to move up to the board's symmetries, plus the draw, win
and loss states; an action is a cell of the state's own board.

The student numbers the states as they like: a state is known here by its *key*, the
canonical form of its board (``"X...O...."``, the least of its eight images) or ``"draw"``,
``"win"`` or ``"loss"``. :func:`after` gives the exact distribution of the next key after a
move on any board of the class (the student's own representative: the action is a cell of
that board); :func:`mdp_truth` holds tttlab's own MDP (:func:`tttlab.planning.build_mdp`)
and its exact optimal values (:func:`tttlab.planning.policy_iteration`) per reward scheme
and discount; :func:`optimum` finds them again where a soft constraint too weak makes
staying put worth more than playing, and :func:`evaluate` values a student's policy
exactly.

Board ids are the text's: cell ``a`` (row-major) has weight ``3**(8 - a)``, with empty 0,
X 1 and O 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from tttlab.game import Geometry, Player, state_space

__all__ = [
    "ENDS",
    "GAMMAS",
    "IDS",
    "SCHEMES",
    "MDPTruth",
    "after",
    "board_of_id",
    "canonical",
    "entry",
    "evaluate",
    "is_decision",
    "mdp_truth",
    "optimum",
    "staying",
    "text_id",
]

G3 = Geometry(3, 3, 3)
#: Board ids of the text: 0 to 3**9 - 1.
IDS = 3**9
#: The terminal states, by the text's code in the table's second column (its winner).
ENDS = ("draw", "win", "loss")
#: The reward on entering each kind of state, per scheme: the text's standard one, and its
#: time-greedy option (every move costs 1, a win pays 10).
SCHEMES: dict[str, dict[str, float]] = {
    "standard": {"win": 1.0, "loss": -1.0, "draw": 0.0, "state": 0.0},
    "time-greedy": {"win": 10.0, "loss": -1.0, "draw": -1.0, "state": -1.0},
}
#: Each scheme in words.
SCHEME_WORDS = {
    "standard": "standard rewards: +1 win, -1 loss, 0 otherwise",
    "time-greedy": "time-greedy rewards: -1 a move, +10 a win",
}
#: The discounts tttlab solves for (those the iteration check asks for).
GAMMAS = (0.9, 1.0)
#: The soft constraint of the text's code (its words: any negative reward, "e.g. -1").
SOFT_CONSTRAINT = -10.0
_MARK = ".XO"


def board_of_id(i: int) -> str | None:
    """The board of a text id (``"X...O...."``), or None when ``i`` is no id."""
    if not 0 <= i < IDS:
        return None
    return "".join(_MARK[(i // 3 ** (8 - a)) % 3] for a in range(9))


def text_id(board: str) -> int:
    """The text's id of a board (the inverse of :func:`board_of_id`)."""
    return sum(_MARK.index(c) * 3 ** (8 - a) for a, c in enumerate(board))


def winner(board: str) -> str:
    """``"X"``, ``"O"``, ``"both"`` or ``"."``."""
    found = {board[line[0]] for line in G3.lines if len({board[c] for c in line}) == 1}
    found.discard(".")
    return found.pop() if len(found) == 1 else ("both" if found else ".")


@cache
def canonical(board: str) -> str:
    """The least of the board's eight images under the square's symmetries."""
    return min("".join(board[p[i]] for i in range(9)) for p in G3.symmetries)


def is_decision(board: str) -> bool:
    """Whether X is to move on ``board`` in a game not over: a state of the MDP."""
    xs, os_ = board.count("X"), board.count("O")
    return xs == os_ and winner(board) == "." and "." in board


def _key(board: str) -> str:
    """The key of a board reached after O's reply (or X's last move)."""
    won = winner(board)
    if won == "X":
        return "win"
    if won == "O":
        return "loss"
    if "." not in board:
        return "draw"
    return canonical(board)


def after(board: str, action: int) -> dict[str, float]:
    """The exact distribution of the next state's key after X plays ``action`` on the
    decision board ``board`` (its cell must be empty) and a uniformly random O replies."""
    played = board[:action] + "X" + board[action + 1 :]
    first = _key(played)
    if first in ENDS:
        return {first: 1.0}
    empty = [c for c in range(9) if played[c] == "."]
    found: dict[str, float] = {}
    for c in empty:
        key = _key(played[:c] + "O" + played[c + 1 :])
        found[key] = found.get(key, 0.0) + 1.0 / len(empty)
    return found


def entry(key: str, scheme: str) -> float:
    """The reward on entering the state ``key`` under ``scheme``."""
    return SCHEMES[scheme][key if key in ENDS else "state"]


def expected_reward(distribution: dict[str, float], scheme: str) -> float:
    return sum(p * entry(k, scheme) for k, p in distribution.items())


@dataclass(frozen=True)
class MDPTruth:
    """tttlab's MDP of the text and its exact solutions.

    Attributes:
        keys: the decision states' keys, in tttlab's order (breadth-first from the start).
        states: the number of states, the three terminal ones included.
        values: (scheme, gamma) → key → the optimal value (0 at the terminal states).
    """

    keys: tuple[str, ...]
    states: int
    values: dict[tuple[str, float], dict[str, float]]

    @property
    def decisions(self) -> int:
        return len(self.keys)


@cache
def mdp_truth() -> MDPTruth:
    """tttlab's MDP for X against a uniformly random O, reduced by symmetry, solved by
    policy iteration (exact) for each scheme and each of :data:`GAMMAS` (about 0.3 s)."""
    from tttlab.planning import build_mdp, policy_iteration

    space = state_space(G3)
    opponent = np.zeros((space.size, 9))
    rows = space.decisions(2)
    legal = space.next[rows] >= 0
    opponent[rows] = legal / legal.sum(axis=1, keepdims=True)
    values: dict[tuple[str, float], dict[str, float]] = {}
    keys: tuple[str, ...] = ()
    for scheme in SCHEMES:
        mdp = build_mdp(
            space,
            Player.X,
            opponent,
            rewards="standard" if scheme == "standard" else "time-greedy",
            soft_constraint=True,
        )
        boards = ["".join(_MARK[c] for c in space.boards[i]) for i in mdp.positions.tolist()]
        keys = tuple(canonical(b) for b in boards)
        for gamma in GAMMAS:
            solution = policy_iteration(mdp, gamma)
            found = dict(zip(keys, solution.V[: len(keys)].tolist(), strict=True))
            found.update(dict.fromkeys(ENDS, 0.0))
            values[(scheme, gamma)] = found
    return MDPTruth(keys, len(keys) + 3, values)


def staying(reward: float, gamma: float) -> float:
    """The worth of staying put forever, ``reward`` a step (an infeasible move under a soft
    constraint): ``reward / (1 - gamma)``; at gamma 1, -inf, 0 or +inf by its sign."""
    if gamma < 1.0:
        return reward / (1.0 - gamma)
    return -math.inf if reward < 0 else (math.inf if reward > 0 else 0.0)


def optimum(stay: dict[str, float], scheme: str, gamma: float) -> dict[str, float]:
    """The optimal values when a state may also stay put (``stay``: key → the best reward of
    an infeasible move there, the student's soft constraint), by backward induction over
    the positions, fuller boards first (every move adds two marks or ends the game). With
    no such state it gives :func:`mdp_truth`'s values, found another way."""
    found = dict.fromkeys(ENDS, 0.0)
    for k in sorted(mdp_truth().keys, key=lambda k: k.count(".")):
        found[k] = max(
            sum(p * (entry(t, scheme) + gamma * found[t]) for t, p in after(k, a).items())
            for a in range(9)
            if k[a] == "."
        )
        if k in stay:
            found[k] = max(found[k], staying(stay[k], gamma))
    return found


def evaluate(
    moves: dict[str, tuple[str, int]],
    scheme: str,
    gamma: float,
    stay: dict[str, float] | None = None,
) -> dict[str, float]:
    """The exact value of a policy given, for every decision key, a board of its class
    and an action on that board (the student's frame): solve (I - gamma P) V = r over the
    decision states (the game ends within five of X's moves whatever the policy, so the
    system is never singular). An action on a taken cell stays put forever with the
    reward ``stay[key]``, whose worth (:func:`staying`) must be finite."""
    keys = list(moves)
    where = {k: i for i, k in enumerate(keys)}
    n = len(keys)
    system = np.eye(n)
    rewards = np.zeros(n)
    for k, (board, action) in moves.items():
        i = where[k]
        if board[action] != ".":
            rewards[i] = staying((stay or {})[k], gamma)
            continue
        distribution = after(board, action)
        rewards[i] = expected_reward(distribution, scheme)
        for target, p in distribution.items():
            if target not in ENDS:
                system[i, where[target]] -= gamma * p
    solved = np.linalg.solve(system, rewards)
    found = dict(zip(keys, solved.tolist(), strict=True))
    found.update(dict.fromkeys(ENDS, 0.0))
    return found
