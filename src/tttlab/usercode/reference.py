"""The course's TD(0) self-play program, written faithfully in pure Python: the workload of
the machine's reference speed (:mod:`tttlab.usercode.speed`, and benchmarks/reference_course.py).

It keeps the course's structure and costs on purpose: a numpy 3×3 board with x = −1 and
o = +1, a state hash recomputed cell by cell after every move, a game-over check by row,
column and diagonal sums, agents that try each move on the board and take it back, per-agent
state histories, and the backward sweep ``V(s) ← V(s) + α (V(s') − V(s))`` at the end of
each episode. Values start at 1 for a win, 0 for a loss or draw, 0.5 otherwise, from a
recursive enumeration of all 3**9 boards. It is tttlab's own code (the course's snippets have
bugs, e.g. ``force_recalculate==False``), and it is only used to time things: changing what
it does changes every reference speed measured since.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LENGTH", "Agent", "Environment", "initial_values", "play_game", "train"]

LENGTH = 3


class Environment:
    def __init__(self) -> None:
        self.board = np.zeros((LENGTH, LENGTH))
        self.x = -1
        self.o = 1
        self.winner: int | None = None
        self.ended = False

    def is_empty(self, i: int, j: int) -> bool:
        return bool(self.board[i, j] == 0)

    def reward(self, sym: int) -> float:
        if not self.game_over():
            return 0.0
        return 1.0 if self.winner == sym else 0.0

    def get_state(self) -> int:
        k = 0
        h = 0
        for i in range(LENGTH):
            for j in range(LENGTH):
                if self.board[i, j] == 0:
                    v = 0
                elif self.board[i, j] == self.x:
                    v = 1
                else:
                    v = 2
                h += (3**k) * v
                k += 1
        return h

    def game_over(self, force_recalculate: bool = False) -> bool:
        if not force_recalculate and self.ended:
            return self.ended
        for player in (self.x, self.o):
            for i in range(LENGTH):
                if (
                    self.board[i].sum() == player * LENGTH
                    or self.board[:, i].sum() == player * LENGTH
                ):
                    self.winner, self.ended = player, True
                    return True
            if (
                self.board.trace() == player * LENGTH
                or np.fliplr(self.board).trace() == player * LENGTH
            ):
                self.winner, self.ended = player, True
                return True
        if np.all(self.board != 0):
            self.winner, self.ended = None, True
            return True
        self.winner = None
        return False


class Agent:
    def __init__(
        self,
        V: np.ndarray,
        sym: int,
        rng: np.random.Generator,
        eps: float = 0.1,
        alpha: float = 0.5,
    ) -> None:
        self.V = V
        self.sym = sym
        self.rng = rng
        self.eps = eps
        self.alpha = alpha
        self.state_history: list[int] = []

    def take_action(self, env: Environment) -> None:
        if self.rng.random() < self.eps:
            moves = [(i, j) for i in range(LENGTH) for j in range(LENGTH) if env.is_empty(i, j)]
            next_move = moves[self.rng.integers(len(moves))]
        else:
            next_move = None
            best_value = -1.0
            for i in range(LENGTH):
                for j in range(LENGTH):
                    if env.is_empty(i, j):
                        env.board[i, j] = self.sym
                        state = env.get_state()
                        env.board[i, j] = 0
                        if self.V[state] > best_value:
                            best_value = self.V[state]
                            next_move = (i, j)
        assert next_move is not None
        env.board[next_move] = self.sym

    def update_state_history(self, s: int) -> None:
        self.state_history.append(s)

    def update(self, env: Environment) -> None:
        target = env.reward(self.sym)
        for prev in reversed(self.state_history):
            self.V[prev] += self.alpha * (target - self.V[prev])
            target = self.V[prev]
        self.state_history = []


def _enumerate(env: Environment, i: int = 0, j: int = 0) -> list[tuple[int, int | None, bool]]:
    results = []
    for v in (0, env.x, env.o):
        env.board[i, j] = v
        if j == LENGTH - 1:
            if i == LENGTH - 1:
                state = env.get_state()
                ended = env.game_over(force_recalculate=True)
                results.append((state, env.winner, ended))
            else:
                results += _enumerate(env, i + 1, 0)
        else:
            results += _enumerate(env, i, j + 1)
    return results


def initial_values(sym: int) -> np.ndarray:
    env = Environment()
    V = np.zeros(3 ** (LENGTH * LENGTH))
    for state, winner, ended in _enumerate(env):
        V[state] = (1.0 if winner == sym else 0.0) if ended else 0.5
    return V


def play_game(p1: Agent, p2: Agent, env: Environment) -> None:
    current = None
    while not env.game_over():
        current = p2 if current is p1 else p1
        current.take_action(env)
        state = env.get_state()
        p1.update_state_history(state)
        p2.update_state_history(state)
    p1.update(env)
    p2.update(env)


def train(episodes: int, seed: int = 0) -> tuple[Agent, Agent]:
    rng = np.random.default_rng(seed)
    env = Environment()
    p1 = Agent(initial_values(env.x), env.x, rng)
    p2 = Agent(initial_values(env.o), env.o, rng)
    for _ in range(episodes):
        play_game(p1, p2, Environment())
    return p1, p2
