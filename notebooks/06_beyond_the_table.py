# %% [markdown]
# # 6. Beyond the table: Monte Carlo tree search
#
# Tables need every position. On bigger boards tttlab still proves the value by search, but
# no table fits on 5×5. Monte Carlo tree search (MCTS) needs no table: from the current
# position it plays many random games, and grows a tree toward the moves that win most.
# (Networks — DQN and AlphaZero — will follow here once tttlab has them.)

# %%
import tttlab

mcts = tttlab.load("mcts:1000")
evaluation = tttlab.evaluate(mcts)
evaluation

# %% [markdown]
# Judged exactly like every other agent. With 1,000 simulations per move it never loses.

# %%
assert evaluation.unbeatable
print(evaluation.X.optimal_share, evaluation.O.optimal_share)

# %% [markdown]
# With few simulations it is much weaker, though still far better than random.

# %%
weak = tttlab.evaluate(tttlab.load("mcts:20"))
print("worst case with 20 simulations:", weak.X.worst_case, weak.O.worst_case)
assert weak.X.optimal_share < evaluation.X.optimal_share

# %% [markdown]
# ## A bigger board
# 4×4 with four in a row is a draw (proved by search in a fraction of a second). MCTS plays
# it with no table at all.

# %%
assert tttlab.solve("4x4k4").value == 0
result = tttlab.arena(["mcts:300", "random"], board="4x4k4", games=5, seed=0)
standings = result.to_dict()["standings"]
assert standings["mcts:300"]["loss"] == 0
result
