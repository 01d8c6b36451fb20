"""The course's Environment, written as a student would (x = -1, o = 1, 0 empty)."""

import numpy as np

LENGTH = 3


class Environment:
    def __init__(self):
        self.board = np.zeros((LENGTH, LENGTH))
        self.x = -1
        self.o = 1
        self.winner = None
        self.ended = False
        self.num_states = 3 ** (LENGTH * LENGTH)

    def is_empty(self, i, j):
        return self.board[i, j] == 0

    def reward(self, sym):
        if not self.game_over():
            return 0
        return 1 if self.winner == sym else 0

    def get_state(self):
        h = 0
        for k, v in enumerate(self.board.flatten()):
            code = 0 if v == 0 else 1 if v == self.x else 2
            h += 3**k * code
        return h

    def game_over(self, force_recalculate=False):
        if not force_recalculate and self.ended:
            return self.ended
        b = self.board
        lines = [*b, *b.T, b.diagonal(), np.fliplr(b).diagonal()]
        for player in (self.x, self.o):
            if any(line.sum() == player * LENGTH for line in lines):
                self.winner = player
                self.ended = True
                return True
        self.winner = None
        self.ended = bool(np.all(b != 0))
        return self.ended


def get_state_hash_and_winner(env, i=0, j=0):
    results = []
    for v in (0, env.x, env.o):
        env.board[i, j] = v
        if i == LENGTH - 1 and j == LENGTH - 1:
            ended = env.game_over(force_recalculate=True)
            results.append((env.get_state(), env.winner, ended))
        elif j == LENGTH - 1:
            results += get_state_hash_and_winner(env, i + 1, 0)
        else:
            results += get_state_hash_and_winner(env, i, j + 1)
    return results


def initial_values(env, triples, sym):
    V = np.zeros(env.num_states)
    for state, winner, ended in triples:
        V[state] = (1.0 if winner == sym else 0.0) if ended else 0.5
    return V


def initialV_x(env, triples):
    return initial_values(env, triples, env.x)


def initialV_o(env, triples):
    return initial_values(env, triples, env.o)
