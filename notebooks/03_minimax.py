# %% [markdown]
# # 3. Minimax and alpha-beta
#
# The exercise's function API: `player`, `actions`, `result` (which refuses an invalid
# move), `winner`, `terminal`, `utility` and `minimax`, over boards of `"X"`, `"O"` and
# `None`.

# %%
from tttlab import exercise as ex

board = ex.initial_state()
assert ex.player(board) == ex.X and len(ex.actions(board)) == 9
board = ex.result(board, (1, 1))
assert ex.player(board) == ex.O
try:
    ex.result(board, (1, 1))
    raise AssertionError("an occupied cell must be refused")
except ValueError as error:
    print("refused:", error)

# %% [markdown]
# `minimax` returns an optimal move. Two perfect players always draw.

# %%
board = ex.initial_state()
while not ex.terminal(board):
    board = ex.result(board, ex.minimax(board))
assert ex.utility(board) == 0
board

# %% [markdown]
# ## Nodes searched, with and without pruning
# Plain minimax visits the whole game tree: 549,946 nodes from the empty board. Alpha-beta
# skips branches that cannot change the result. Here it is, written with the exercise's
# functions, counting the positions it visits.

# %%
import math

visited = 0


def alphabeta(board, alpha, beta):
    global visited
    visited += 1
    if ex.terminal(board):
        return ex.utility(board)
    maximising = ex.player(board) == ex.X
    best = -math.inf if maximising else math.inf
    for action in sorted(ex.actions(board)):
        value = alphabeta(ex.result(board, action), alpha, beta)
        if maximising:
            best, alpha = max(best, value), max(alpha, value)
        else:
            best, beta = min(best, value), min(beta, value)
        if alpha >= beta:
            break
    return best


value = alphabeta(ex.initial_state(), -math.inf, math.inf)
print(f"value {value}, {visited:,} nodes with pruning")
import tttlab

tree = tttlab.solve("3x3").game_tree
assert value == 0 and visited < tree["nodes"] / 10
print(f"{tree['nodes']:,} nodes without")

# %% [markdown]
# ## The solved game
# The full table solves every position at once. It agrees with alpha-beta: a draw, and
# every first move keeps it.

# %%
solved = tttlab.solve("3x3")
assert solved.value == 0 and solved.depth == 9
assert solved.optimal_first_moves == tuple(range(9))
solved
