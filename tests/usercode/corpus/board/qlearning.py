"""The Board class of the Q-learning text, as a student would write it: the state is a
string of "0" (empty), "1" (X) and "2" (O); play() ends the game when it should."""

import random

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class Board:
    def __init__(self, state="000000000"):
        self.winner = None
        self.state = state
        self.reward = 0
        self.open = [i for i, c in enumerate(state) if c == "0"]

    def check_end(self, player, action):
        for line in LINES:
            if action in line and all(self.state[i] == player for i in line):
                self.winner = player
                self.reward = 1 if player == "1" else -1
                return
        if self.winner is None and not self.open:
            self.winner = "0"

    def play(self, action, player):
        self.state = self.state[:action] + player + self.state[action + 1 :]
        self.open.remove(action)
        self.check_end(player, action)

    def display(self):
        marks = {"0": "_", "1": "X", "2": "O"}
        for row in range(3):
            print(" ".join(f"{i}:{marks[self.state[i]]}" for i in range(row * 3, row * 3 + 3)))


class Agent:
    """Q-learning, trained when the script runs (not when it is checked)."""

    def __init__(self, epsilon=0.1, discount=0.9, alpha=0.5):
        self.epsilon, self.discount, self.alpha = epsilon, discount, alpha
        self.q = {}

    def choose_action(self, board):
        if random.random() < self.epsilon:
            return random.choice(board.open)
        values = self.q.get(board.state, {})
        return max(board.open, key=lambda a: values.get(a, 0.0))


agent = Agent()
for episode in range(10**9):  # trains "forever" at import: the checker must not run this
    board = Board()
