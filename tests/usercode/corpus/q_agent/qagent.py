"""The Q-learning text's Board and Agent, written as its tables say: states are strings of
"0" (empty), "1" (X) and "2" (O); the Agent keeps one table q[state][action] from X's side,
X maximises it and O minimises it, and learns by Q-learning or SARSA. Training runs only as
a script."""

import random

ROWS = [(r, r + 1, r + 2) for r in (0, 3, 6)]
COLUMNS = [(c, c + 3, c + 6) for c in (0, 1, 2)]
LINES = ROWS + COLUMNS + [(0, 4, 8), (2, 4, 6)]


class Board:
    def __init__(self, state="000000000"):
        self.winner = None
        self.state = state
        self.reward = 0
        self.open = []
        for i in range(len(state)):
            if state[i] == "0":
                self.open.append(i)

    def check_end(self, player, action):
        for line in LINES:
            if action in line and all(self.state[i] == player for i in line):
                self.winner = player
        if self.winner is None and not self.open:
            self.winner = "0"
        if self.winner == "1":
            self.reward = 1
        elif self.winner == "2":
            self.reward = -1

    def play(self, action, player):
        cells = list(self.state)
        cells[action] = player
        self.state = "".join(cells)
        self.open.remove(action)
        self.check_end(player, action)

    def display(self):
        marks = {"0": "_", "1": "X", "2": "O"}
        for first in (0, 3, 6):
            print("  ".join(f"{i}:{marks[self.state[i]]}" for i in range(first, first + 3)))


class Agent:
    def __init__(self, epsilon, discount, alpha, algorithm="qlearning"):
        self.epsilon = epsilon
        self.discount = discount
        self.alpha = alpha
        self.algorithm = algorithm
        self.State = Board()
        self.q = {}
        self.states = set()
        self.players = {True: "1", False: "2"}
        self.add_state(self.State.state, self.State.open)

    def train(self, num_episodes):
        if self.algorithm == "qlearning":
            self.qlearning(num_episodes)
        else:
            self.sarsa(num_episodes)

    def best_action(self, player):
        values = self.q[self.State.state]
        if player:  # X maximises
            best = max(values.values())
        else:  # O minimises
            best = min(values.values())
        return random.choice([action for action, value in values.items() if value == best])

    def choose_action(self, player):
        if random.random() < self.epsilon:
            return random.choice(self.State.open)
        return self.best_action(player)

    def add_state(self, state, open):
        self.states.add(state)
        self.q[state] = {}
        for action in open:
            self.q[state][action] = 0.0

    def move(self, action, player):
        """Plays action for player; returns the state it leads to, added if new."""
        self.State.play(action, self.players[player])
        state = self.State.state
        if state not in self.states:
            self.add_state(state, self.State.open)
        return state

    def qlearning(self, num_episodes):
        for _ in range(num_episodes):
            self.State = Board()
            player = True
            while self.State.winner is None:
                previous = self.State.state
                action = self.choose_action(player)
                state = self.move(action, player)
                player = not player
                if self.State.winner is None:
                    future = self.q[state][self.best_action(player)]
                    expected = self.State.reward + self.discount * future
                else:
                    expected = self.State.reward
                self.q[previous][action] += self.alpha * (expected - self.q[previous][action])

    def sarsa(self, num_episodes):
        for _ in range(num_episodes):
            self.State = Board()
            player = True
            action = self.choose_action(player)
            while self.State.winner is None:
                previous = self.State.state
                state = self.move(action, player)
                player = not player
                if self.State.winner is None:
                    next_action = self.choose_action(player)
                    target = self.State.reward + self.discount * self.q[state][next_action]
                else:
                    target = self.State.reward
                self.q[previous][action] += self.alpha * (target - self.q[previous][action])
                action = next_action

    def play_o(self, num_games):
        for _ in range(num_games):
            board = Board()
            x = True
            while board.winner is None:
                if x:
                    self.State = board
                    board.play(self.best_action(True), "1")
                else:
                    board.display()
                    action = int(input("your move (0-8): "))
                    while action not in board.open:
                        action = int(input("that cell is taken; your move (0-8): "))
                    board.play(action, "2")
                x = not x
            board.display()
            print({"1": "X WINS!", "2": "O WINS!", "0": "TIE!"}[board.winner])


if __name__ == "__main__":
    agent = Agent(0.1, 0.9, 0.5, algorithm="qlearning")
    agent.train(20_000)
    agent.play_o(1)
