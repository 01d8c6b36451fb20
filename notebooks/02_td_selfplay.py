# %% [markdown]
# # 2. TD(0) self-play, as in the course
#
# One value table per seat: V(s) is the seat's estimate that it wins from s. Values start
# at 1 for a won position, 0 for a lost one, and 0.5 elsewhere. Both seats play ε-greedy
# against each other, and after each game a backward sweep moves each value toward the next:
# V(s) ← V(s) + α (V(s') − V(s)).

# %%
import tttlab

agent = tttlab.train("td", episodes=20_000, seed=0, progress=False)
agent  # its exact evaluation

# %% [markdown]
# The evaluation is exact: over every position the agent can reach. With the defaults
# (ε from 0.3 to 0, α from 0.5 to 0.1, a draw worth 0.5) it never loses, on either seat.

# %%
evaluation = tttlab.evaluate(agent)
assert evaluation.X.worst_case == 0 and evaluation.O.worst_case == 0
evaluation

# %% [markdown]
# ## Reading its values
# The agent's values for X's first move: the centre and the corners look best.

# %%
start = tttlab.position(".../.../...")
values = agent.move_values(start)
print({cell + 1: round(v, 3) for cell, v in values.items()})

# %% [markdown]
# ## Why the course's version never becomes unbeatable
# The course starts a drawn final position at 0, the same as a loss, and rewards a draw
# with 0. Then holding a draw and losing look alike, and its ties pick losing moves.
# `draw_reward=0` gives the course's behaviour back.

# %%
course = [
    tttlab.train("td", episodes=20_000, seed=s, draw_reward=0.0, progress=False) for s in range(3)
]
fixed = [tttlab.train("td", episodes=20_000, seed=s, progress=False) for s in range(3)]
course_ok = [tttlab.evaluate(a).unbeatable for a in course]
fixed_ok = [tttlab.evaluate(a).unbeatable for a in fixed]
print("course's draw value, unbeatable:", course_ok)
print("draw worth 0.5, unbeatable:     ", fixed_ok)
assert not any(course_ok) and all(fixed_ok)

# %% [markdown]
# ## Play it
# In a terminal: `ttt play --opponent td.npz`. Here, one game against `perfect`:

# %%
import numpy as np

from tttlab.agents import PerfectAgent

rng = np.random.default_rng(0)
position = start
players = [agent, PerfectAgent(position.geometry)]
while not position.is_terminal:
    position = position.apply(players[position.ply % 2].select_move(position, rng))
assert position.winner is None  # a draw, as best play gives
position
