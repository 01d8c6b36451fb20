"""What the td-agent checks plan and what is true of each case (:mod:`.td_agent` words it):
the games whose histories ``update`` sweeps, the positions ``take_action`` is asked on, the
seeds of ``play_game``'s recording agents; the course's backward sweep, the greedy cells, the
statistical tests, and the order of the calls a right ``play_game`` makes.

Every value is recomputed here from tttlab's rules and from the table drawn from the case's
seed (:func:`~tttlab.usercode.boxside.shapes.base.drawn`); the box only reports what the
student's code did.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from tttlab.usercode.boxside.shapes.base import drawn
from tttlab.usercode.boxside.shapes.spies import spy_game
from tttlab.usercode.boxside.shapes.standin import SIZE

from .base import grid
from .course import board_of, state_id

if TYPE_CHECKING:
    from tttlab.usercode.cases import ExerciseTruth

__all__ = [
    "FALSE_ALARM",
    "KINDS",
    "SIZE",
    "Draw",
    "Game",
    "board_of",
    "cell_name",
    "deviation",
    "games",
    "greedy",
    "plan_draws",
    "plan_seeds",
    "state_id",
    "sweep",
    "table",
]

#: The false-alarm rate of the statistical cases of ``take_action``, for the whole check
#: (each test is held to it divided by the number of tests: Bonferroni).
FALSE_ALARM = 1e-6
#: The kinds of game ``update`` is given, shortest first: (moves, winner).
KINDS = ((5, "X"), (6, "O"), (7, "X"), (8, "O"), (9, "X"), (9, "."))


def cell_name(cell: int) -> str:
    """A cell as the course writes a move: ``(i, j)``."""
    return f"({cell // 3}, {cell % 3})"


@lru_cache(maxsize=128)
def table(seed: int) -> tuple[float, ...]:
    """The value table the box hands the agent for ``seed``, drawn here alike."""
    return tuple(drawn(seed, SIZE))


@dataclass(frozen=True)
class Game:
    """One history for ``update``: the cells played (x first), the seat of the agent, the
    seed of its table and its alpha."""

    moves: tuple[int, ...]
    seat: str
    seed: int
    alpha: float


def _play(truth: ExerciseTruth, rng: np.random.Generator) -> tuple[tuple[int, ...], int]:
    """A game between two uniformly random players: its cells and its last board's index."""
    i, moves = truth.index("." * 9), []
    while not truth.terminal[i]:
        legal = truth.legal[i]
        move = legal[int(rng.integers(len(legal)))]
        moves.append(move)
        i = truth.index(truth.child[i][move])
    return tuple(moves), i


def games(truth: ExerciseTruth, each: int = 10, seed: int = 60) -> list[tuple[Game, str]]:
    """``each`` random games of every kind in :data:`KINDS` (every length, wins for each
    seat, draws), the seat alternating, each with its own table seed and alpha; with each
    game's last board. Shortest games first."""
    rng = np.random.default_rng(seed)
    found: dict[tuple[int, str], list[tuple[tuple[int, ...], int]]] = {k: [] for k in KINDS}
    while any(len(v) < each for v in found.values()):
        moves, last = _play(truth, rng)
        kind = (len(moves), truth.winner[last])
        if kind in found and len(found[kind]) < each:
            found[kind].append((moves, last))
    planned = []
    for kind in KINDS:
        for n, (moves, last) in enumerate(found[kind]):
            alpha = round(float(rng.uniform(0.1, 0.9)), 2)
            game = Game(moves, "XO"[n % 2], int(rng.integers(2**31)), alpha)
            planned.append((game, truth.boards[last]))
    return planned


def sweep(game: Game, truth: ExerciseTruth) -> tuple[list[tuple[int, float]], int]:
    """The course's update over the game's history (the state after every move, the last
    one included), latest first: each ``(state, value after)``; and the reward."""
    board, states = "." * 9, []
    for k, cell in enumerate(game.moves):
        board = board[:cell] + "XO"[k % 2] + board[cell + 1 :]
        states.append(state_id(board))
    reward = int(truth.winner[truth.index(board)] == game.seat)
    before = table(game.seed)
    target, after = float(reward), []
    for s in reversed(states):
        value = before[s] + game.alpha * (target - before[s])
        after.append((s, value))
        target = value
    return after, reward


@dataclass(frozen=True)
class Draw:
    """One ``take_action`` case: the table's seed and the entries set over it, epsilon, the
    number of calls, and the level a statistical case's test is held to."""

    seed: int
    eps: float
    calls: int = 1
    overrides: tuple[tuple[int, float], ...] = ()
    level: float = 0.0

    def value(self, state: int) -> float:
        for s, v in self.overrides:
            if s == state:
                return v
        return table(self.seed)[state]


def greedy(board: str, draw: Draw, precision: str = "") -> tuple[list[int], float]:
    """The cells whose next state has the largest value for the mover, and that value; with
    the values held at ``precision`` ("float32": two values that round alike are a tie)."""
    mark = "X" if board.count("X") == board.count("O") else "O"
    held = np.dtype(precision).type if precision else float
    scores = {
        k: float(held(draw.value(state_id(board[:k] + mark + board[k + 1 :]))))
        for k, c in enumerate(board)
        if c == "."
    }
    best = max(scores.values())
    return [k for k, v in scores.items() if v == best], best


def _tie(board: str, cells: list[int]) -> tuple[tuple[int, float], ...]:
    """Entries that give ``cells`` the same largest value (1.0: every drawn value is less)."""
    mark = "X" if board.count("X") == board.count("O") else "O"
    return tuple((state_id(board[:k] + mark + board[k + 1 :]), 1.0) for k in cells)


def plan_draws(truth: ExerciseTruth, seed: int = 61) -> list[tuple[str, int, Draw]]:
    """The ``take_action`` cases, each ``(board, rank, draw)``: greedy moves (ε = 0) on 240
    decision positions and 24 more with a tie, then ε = 1 on positions with 9, 7, 5, 3 and
    2 empty cells and ε = 0.3 on four more (300 calls each)."""
    rng = np.random.default_rng(seed)
    decisions = truth.decisions()
    chosen = [0, *sorted(int(i) for i in rng.choice(decisions[1:], 239, replace=False))]
    cases = [(truth.boards[i], i, Draw(1000 + n % 12, 0.0)) for n, i in enumerate(chosen)]
    several = [i for i in decisions if len(truth.legal[i]) >= 3]
    for n, i in enumerate(sorted(int(i) for i in rng.choice(several, 24, replace=False))):
        board = truth.boards[i]
        cells = sorted(int(c) for c in rng.choice(truth.legal[i], 2 + n % 2, replace=False))
        cases.append((board, truth.size + n, Draw(1100 + n, 0.0, 1, _tie(board, cells))))
    stats: list[tuple[int, float, int]] = []  # (index, eps, cells tied)
    for empty, eps, tied in ((9, 1.0, 0), (7, 1.0, 0), (5, 1.0, 0), (3, 1.0, 0), (2, 1.0, 0)):
        stats.append((_with_empty(truth, rng, empty), eps, tied))
    for empty, tied in ((8, 0), (6, 0), (4, 0), (5, 2)):
        stats.append((_with_empty(truth, rng, empty), 0.3, tied))
    # one test per empty cell at eps = 1, one per case in between
    tests = sum(len(truth.legal[i]) if eps == 1.0 else 1 for i, eps, _ in stats)
    for n, (i, eps, tied) in enumerate(stats):
        board = truth.boards[i]
        cells = list(truth.legal[i][:tied])
        draw = Draw(1200 + n, eps, 300, _tie(board, cells) if tied else (), FALSE_ALARM / tests)
        cases.append((board, 2 * truth.size + n, draw))
    return cases


def _with_empty(truth: ExerciseTruth, rng: np.random.Generator, empty: int) -> int:
    options = [i for i in truth.decisions() if len(truth.legal[i]) == empty]
    return int(options[int(rng.integers(len(options)))])


def plan_seeds(truth: ExerciseTruth) -> list[int]:
    """Seeds of the recording agents whose game, played right, ends in a win for x (4), a
    win for o (3) and a draw (3)."""
    wanted, found = {"X": 4, "O": 3, ".": 3}, []
    for seed in range(10_000):
        board = "." * 9
        for k, cell in enumerate(spy_game(seed)):
            board = board[:cell] + "XO"[k % 2] + board[cell + 1 :]
        winner = truth.winner[truth.index(board)]
        if wanted[winner]:
            wanted[winner] -= 1
            found.append(seed)
        if not any(wanted.values()):
            break
    return found


def _said(event: Any) -> str:
    kind, who, board, extra = event
    if kind == "a":
        return f"p{who}.take_action(env) on {grid(board)}"
    if kind == "h":
        given = extra if type(extra) is int else extra[1]
        return f"p{who}.update_state_history({given})"
    where = "env" if extra else "another env"
    return f"p{who}.update({where}) with its board {grid(board)}"


def deviation(events: list[Any], stopped: bool, truth: ExerciseTruth) -> tuple[str, str] | None:
    """The first call of ``play_game`` on its agents that a right one would not make, in
    words, and the board then; None when every call is right and the game was played out.
    Right: p1, then p2, take a turn each until the game is over; after each move both get
    ``update_state_history`` of the state after it; then both ``update(env)`` once, with the
    final board."""
    board, moves, at, i = "." * 9, 0, 0, 0

    def wrong(wanted: str) -> tuple[str, str]:
        if at >= len(events):
            ended = "was stopped" if stopped else "returned"
            return f"after move {moves} it {ended} without {wanted}", board
        return f"call {at + 1}: {_said(events[at])}; expected {wanted}", board

    while not truth.terminal[i := truth.index(board)]:
        who = 1 + moves % 2
        wanted = f"p{who}.take_action(env) on {grid(board)}"
        event = events[at] if at < len(events) else None
        if event is None or event[:3] != ["a", who, board] or event[3] not in truth.legal[i]:
            return wrong(wanted)
        before, board = board, board[: event[3]] + "XO"[who - 1] + board[event[3] + 1 :]
        moves, at = moves + 1, at + 1
        state = state_id(board)
        told: set[int] = set()
        for _ in range(2):
            left = [p for p in (1, 2) if p not in told]
            wanted = " and ".join(f"p{p}.update_state_history({state})" for p in left)
            event = events[at] if at < len(events) else None
            if event is None or event[0] != "h" or event[1] not in left or event[3] != state:
                if event is not None and event[0] == "h" and event[3] == state_id(before):
                    wanted += " (it was given the state before the move)"
                return wrong(wanted)
            told.add(event[1])
            at += 1
    updated: set[int] = set()
    for _ in range(2):
        left = [p for p in (1, 2) if p not in updated]
        wanted = " and ".join(f"p{p}.update(env)" for p in left) + f" on {grid(board)}"
        event = events[at] if at < len(events) else None
        if event is None or event[0] != "u" or event[1] not in left or event[2:] != [board, 1]:
            return wrong(wanted + " (the game is over)")
        updated.add(event[1])
        at += 1
    if at < len(events) or stopped:
        return wrong("no more calls: the game is over and both agents updated")
    return None
