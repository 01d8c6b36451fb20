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

# %% [markdown]
# ## Check your own
# Wrote the course's `Agent` and `play_game` yourself? `tttlab.check` grades `update`,
# `take_action` and `play_game` exactly: the agent plays on a stand-in for the course's Environment, and each
# value it changes is compared with the backward sweep over the same game. Here is a compact
# one with a classic bug: the sweep runs forwards, from the first state to the last.

# %%
import tempfile
from pathlib import Path

MY_AGENT = """
import numpy as np


class Agent:
    def __init__(self, eps=0.1, alpha=0.5):
        self.eps, self.alpha, self.state_history = eps, alpha, []

    def setV(self, V):
        self.V = V

    def set_symbol(self, sym):
        self.sym = sym

    def value_after(self, env, cell):  # V of the state that playing cell leads to
        env.board[cell] = self.sym
        value = self.V[env.get_state()]
        env.board[cell] = 0
        return value

    def take_action(self, env):
        cells = [(i, j) for i in range(3) for j in range(3) if env.is_empty(i, j)]
        if np.random.rand() >= self.eps:  # greedy: the first of the best cells
            move = max(cells, key=lambda cell: self.value_after(env, cell))
        else:
            move = cells[np.random.choice(len(cells))]
        env.board[move] = self.sym

    def update_state_history(self, s):
        self.state_history.append(s)

    def update(self, env):
        target = env.reward(self.sym)
        for s in self.state_history:  # the bug: the sweep starts at the first state
            target = self.V[s] = self.V[s] + self.alpha * (target - self.V[s])
        self.state_history = []


def play_game(p1, p2, env):
    turn = 0
    while not env.game_over():
        (p1, p2)[turn % 2].take_action(env)
        turn += 1
        state = env.get_state()
        for p in (p1, p2):
            p.update_state_history(state)
    for p in (p1, p2):
        p.update(env)
"""
folder = Path(tempfile.mkdtemp())
(folder / "my_agent.py").write_text(MY_AGENT)
report = tttlab.check(folder / "my_agent.py", only=["update"])
assert not report.checks["update"].ok
print(report.summary())

# %% [markdown]
# The counterexample names the first entry of the table that is wrong, with the game, α and
# a line to reproduce it. Sweeping `reversed(self.state_history)` fixes it:

# %%
fixed = MY_AGENT.replace("in self.state_history:", "in reversed(self.state_history):")
(folder / "my_agent.py").write_text(fixed)
assert tttlab.check(folder / "my_agent.py", only=["update"]).ok
