"""The course's TD(0) agent: a value table and an epsilon-greedy move."""

import numpy as np
from Environment import LENGTH


class Agent:
    def __init__(self, eps=0.1, alpha=0.5):
        self.eps = eps
        self.alpha = alpha
        self.state_history = []

    def update_state_history(self, s):
        self.state_history.append(s)

    def setV(self, V):
        self.V = V

    def set_symbol(self, sym):
        self.sym = sym

    def take_action(self, env):
        empty = [(i, j) for i in range(LENGTH) for j in range(LENGTH) if env.is_empty(i, j)]
        if np.random.rand() < self.eps:
            move = empty[np.random.choice(len(empty))]
        else:
            best = -1
            for i, j in empty:
                env.board[i, j] = self.sym
                value = self.V[env.get_state()]
                env.board[i, j] = 0
                if value > best:
                    best, move = value, (i, j)
        env.board[move] = self.sym

    def update(self, env):
        target = env.reward(self.sym)
        for prev in reversed(self.state_history):
            value = self.V[prev] + self.alpha * (target - self.V[prev])
            self.V[prev] = value
            target = value
        self.state_history = []
