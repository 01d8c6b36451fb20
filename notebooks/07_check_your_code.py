# %% [markdown]
# # 7. Check your own code
#
# The course's exercise asks for `player`, `actions`, `result`, `winner`, `terminal`,
# `utility` and `minimax`. Graders try a handful of boards; tttlab tries **every** board that
# legal play can reach (5,478 of them), against its own rules and solver, and shows the first
# board where the code goes wrong.
#
# Here is a student's module with a classic bug: `result` checks that the cell is empty, but
# not that it is on the board. Python lists accept negative indices, so `(0, -1)` quietly
# plays the last cell of the row.

# %%
import os
import tempfile
from pathlib import Path

import tttlab

os.chdir(tempfile.mkdtemp(prefix="lesson7-"))  # the student's file goes in a scratch folder

STUDENT = """
import copy
from functools import cache

X, O, EMPTY = "X", "O", None
TRIPLES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

def initial_state():
    return [[EMPTY] * 3 for _ in range(3)]

def cells(board):
    return tuple(c for row in board for c in row)

def player(board):
    return X if cells(board).count(X) == cells(board).count(O) else O

def actions(board):
    return {divmod(n, 3) for n, c in enumerate(cells(board)) if c is EMPTY}

def result(board, action):
    i, j = action
    if board[i][j] is not EMPTY:   # the bug: (0, -1) is board[0][2]
        raise ValueError("occupied")
    new = copy.deepcopy(board)
    new[i][j] = player(board)
    return new

def winner(board):
    c = cells(board)
    won = [c[a] for a, b, d in TRIPLES if c[a] is not EMPTY and c[a] == c[b] == c[d]]
    return won[0] if won else None

def terminal(board):
    return winner(board) is not None or EMPTY not in cells(board)

def utility(board):
    return {X: 1, O: -1}.get(winner(board), 0)

@cache
def value(key):
    board = [list(key[r * 3 : r * 3 + 3]) for r in range(3)]
    if terminal(board):
        return utility(board)
    pick = max if player(board) == X else min
    return pick(value(cells(result(board, a))) for a in actions(board))

def minimax(board):
    if terminal(board):
        return None
    best = max if player(board) == X else min
    return best(sorted(actions(board)), key=lambda a: value(cells(result(board, a))))
"""
Path("tictactoe.py").write_text(STUDENT)
report = tttlab.check("tictactoe.py")
print(report.summary())

# %% [markdown]
# Every other function passes on every board. `result` fails on thousands of calls, and the
# report shows the earliest one, with a line you can paste into Python to see it yourself:

# %%
assert not report.ok
assert report.checks["minimax"].ok
report.checks["result"].example.repro

# %% [markdown]
# The fix is one line: refuse actions off the board. Checking only `result` again:

# %%
fixed = STUDENT.replace(
    "    if board[i][j] is not EMPTY:",
    "    if not (0 <= i < 3 and 0 <= j < 3) or board[i][j] is not EMPTY:",
)
Path("tictactoe.py").write_text(fixed)
again = tttlab.check("tictactoe.py", only=["result"])
assert again.ok
print(again.summary())

# %% [markdown]
# ## Your minimax is an agent
#
# Any function that picks moves can be judged exactly, like tttlab's own agents: here the
# student's `minimax`, called on the exercise's boards. It never loses, on either seat, and
# every move it makes keeps the game value.

# %%
judged = tttlab.evaluate("tictactoe.py:minimax")
assert judged.unbeatable
assert judged.X.optimal_share == judged.O.optimal_share == 1.0
judged

# %% [markdown]
# ## A policy from any library
#
# A policy trained with another library usually takes observations and an action mask. Given
# a whole batch at once, the exact judge asks it for every position in a few calls. This one
# plays the first empty cell; the judge finds that it can be beaten on both seats.

# %%
import numpy as np


def first_free(observations, masks):
    return np.argmax(masks, axis=1)


naive = tttlab.evaluate(first_free)
assert naive.X.worst_case == naive.O.worst_case == -1
naive
