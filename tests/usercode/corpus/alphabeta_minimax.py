"""Tic Tac Toe Player (minimax with alpha-beta pruning)."""

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
        a, b, c = (board[i][j] for i, j in line)
        if a is not None and a == b == c:
            return a
    return None


def terminal(board):
    return winner(board) is not None or all(cell is not EMPTY for row in board for cell in row)


def utility(board):
    w = winner(board)
    return 1 if w == X else -1 if w == O else 0


def value(board, alpha, beta):
    """The game value of ``board`` from X's side, searching only inside (alpha, beta)."""
    if terminal(board):
        return utility(board)
    if player(board) == X:
        v = -math.inf
        for action in actions(board):
            v = max(v, value(result(board, action), alpha, beta))
            alpha = max(alpha, v)
            if alpha >= beta:
                break
        return v
    v = math.inf
    for action in actions(board):
        v = min(v, value(result(board, action), alpha, beta))
        beta = min(beta, v)
        if alpha >= beta:
            break
    return v


def minimax(board):
    if terminal(board):
        return None
    best, best_value = None, None
    alpha, beta = -math.inf, math.inf
    for action in sorted(actions(board)):
        v = value(result(board, action), alpha, beta)
        if best_value is None or (v > best_value if player(board) == X else v < best_value):
            best, best_value = action, v
        if player(board) == X:
            alpha = max(alpha, v)
        else:
            beta = min(beta, v)
    return best
