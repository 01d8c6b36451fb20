"""Tic Tac Toe Player (plain minimax, deepcopy in result)."""

import copy
import math

X = "X"
O = "O"
EMPTY = None


def initial_state():
    return [[EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY]]


def player(board):
    xs = sum(row.count(X) for row in board)
    os_ = sum(row.count(O) for row in board)
    return O if xs > os_ else X


def actions(board):
    return {(i, j) for i in range(3) for j in range(3) if board[i][j] == EMPTY}


def result(board, action):
    if action not in actions(board):
        raise ValueError("invalid action")
    new = copy.deepcopy(board)
    new[action[0]][action[1]] = player(board)
    return new


def winner(board):
    lines = [[(i, 0), (i, 1), (i, 2)] for i in range(3)]
    lines += [[(0, j), (1, j), (2, j)] for j in range(3)]
    lines += [[(0, 0), (1, 1), (2, 2)], [(0, 2), (1, 1), (2, 0)]]
    for line in lines:
        marks = [board[i][j] for i, j in line]
        if marks[0] is not None and marks.count(marks[0]) == 3:
            return marks[0]
    return None


def terminal(board):
    return winner(board) is not None or len(actions(board)) == 0


def utility(board):
    w = winner(board)
    if w == X:
        return 1
    if w == O:
        return -1
    return 0


def max_value(board):
    if terminal(board):
        return utility(board)
    v = -math.inf
    for action in actions(board):
        v = max(v, min_value(result(board, action)))
    return v


def min_value(board):
    if terminal(board):
        return utility(board)
    v = math.inf
    for action in actions(board):
        v = min(v, max_value(result(board, action)))
    return v


def minimax(board):
    if terminal(board):
        return None
    if player(board) == X:
        return max(actions(board), key=lambda a: min_value(result(board, a)))
    return min(actions(board), key=lambda a: max_value(result(board, a)))
