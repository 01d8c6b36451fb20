"""Tic Tac Toe Player (minimax with alpha-beta pruning)."""

import math

X, O, EMPTY = "X", "O", None

ROWS = [[(i, j) for j in range(3)] for i in range(3)]
COLUMNS = [[(i, j) for i in range(3)] for j in range(3)]
DIAGONALS = [[(0, 0), (1, 1), (2, 2)], [(0, 2), (1, 1), (2, 0)]]


def initial_state():
    """Returns the starting state of the board."""
    return [[EMPTY] * 3 for _ in range(3)]


def player(board):
    """X moves first, so O is to move whenever X has more marks."""
    cells = [cell for row in board for cell in row]
    return O if cells.count(X) > cells.count(O) else X


def actions(board):
    moves = set()
    for i, row in enumerate(board):
        for j, cell in enumerate(row):
            if cell is EMPTY:
                moves.add((i, j))
    return moves


def result(board, action):
    i, j = action
    if i not in range(3) or j not in range(3) or board[i][j] is not EMPTY:
        raise Exception("not a legal move")
    copied = [row[:] for row in board]
    copied[i][j] = player(board)
    return copied


def winner(board):
    for line in ROWS + COLUMNS + DIAGONALS:
        marks = {board[i][j] for i, j in line}
        if len(marks) == 1 and EMPTY not in marks:
            return marks.pop()
    return None


def terminal(board):
    if winner(board) is not None:
        return True
    return not actions(board)


def utility(board):
    return {X: 1, O: -1}.get(winner(board), 0)


def value(board, alpha, beta):
    """The game value of ``board`` from X's side, searching only inside (alpha, beta)."""
    if terminal(board):
        return utility(board)
    sign = 1 if player(board) == X else -1  # O's best is X's worst
    best = -math.inf
    for action in actions(board):
        v = value(result(board, action), alpha, beta)
        best = max(best, sign * v)
        if sign == 1:
            alpha = max(alpha, v)
        else:
            beta = min(beta, v)
        if alpha >= beta:
            break
    return sign * best


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
