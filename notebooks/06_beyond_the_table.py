# %% [markdown]
# # 6. Beyond the table: MCTS, DQN and AlphaZero
#
# Tables need every position. On bigger boards tttlab still proves the value by search, but
# no table fits on 5×5. Monte Carlo tree search (MCTS) needs no table: from the current
# position it plays many random games, and grows a tree toward the moves that win most.
# Networks need no table either: at the end of this lesson DQN and AlphaZero learn 3×3 by
# self-play, and are judged exactly like everything else.

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

# %% [markdown]
# ## Networks: DQN and AlphaZero
#
# `ttt train dqn` learns the same action values as Q-learning, but with a network: what it
# learns about one position carries over to similar ones. `ttt train alphazero` learns a policy
# and a value, with targets from a search (`mctx`). Both play thousands of games at once on
# `tttlab.vector`, the batched JAX environment. They need the `neural` extra.
#
# Early on, each still makes mistakes, and the exact judge finds them: `mistakes` lists the
# positions where the agent's move gives away the game value, most likely first.

# %%
from tttlab.evaluation import mistakes
from tttlab.game import Geometry, Player


def early_mistake(algorithm, games, **options):
    """Train ``algorithm`` for ``games`` self-play games, then show the most likely position
    where it gives the game away, on either seat."""
    agent = tttlab.train(algorithm, episodes=games, seed=0, progress=False, **options)
    for seat in (Player.X, Player.O):
        found = mistakes(agent, Geometry(), seat, limit=1)
        if found:
            mistake = found[0]
            print(
                f"{algorithm} after {games:,} games: {mistake.to_move} to move plays "
                f"{list(mistake.wrong)}; only {list(mistake.right)} keep the game value"
            )
            return agent, mistake
    return agent, None


early_dqn, slip = early_mistake("dqn", 2048)
tttlab.position(slip.position)

# %% [markdown]
# After 2,048 games DQN's values are still rough: here its move loses a drawn game, and the
# judge counts every such position against its optimal share. (With 16,384 games, seed 0 is
# perfect on both seats: the families plot in the networks guide shows all four families
# learning, judged like this every 2,048 games.)

# %%
early_evaluation = early_dqn.evaluation()
assert slip is not None and not early_evaluation.unbeatable
early_evaluation

# %% [markdown]
# AlphaZero, in batches of 128 games (the default is 256: half the games between two rounds
# of learning), after 1,024 games still falls into the classic trap as O: X holds two
# opposite corners around O's centre, and only an edge holds the draw; a corner loses.

# %%
_, miss = early_mistake("alphazero", 1024, batch=128)
assert miss is not None and miss.to_move == "O" and set(miss.right) == {1, 3, 5, 7}
tttlab.position(miss.position)

# %% [markdown]
# With 4,096 games it is perfect: unbeatable on both seats, and every move it can reach keeps
# the game value.

# %%
az = tttlab.train("alphazero", episodes=4096, seed=0, progress=False, batch=128)
az_evaluation = az.evaluation()
assert az_evaluation.unbeatable
assert az_evaluation.X.optimal_share == az_evaluation.O.optimal_share == 1.0
az_evaluation

# %% [markdown]
# A few thousand games of self-play make AlphaZero perfect on 3×3, and the judge can say so
# exactly because the game is small. On boards too big for a table, see the networks guide.
