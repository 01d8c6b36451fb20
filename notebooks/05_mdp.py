# %% [markdown]
# # 5. The game as an MDP
#
# Against a fixed opponent the game is a Markov decision process: the states are the
# positions where our seat moves (reduced by symmetry), plus three absorbing states (draw,
# win, loss). P[a] is the matrix of transition probabilities for action a, R the rewards.

# %%
import tttlab

x = tttlab.mdp(seat="X", opponent="random")
print(x.states, "states,", len(x.P), "actions")
print("P[4] (the centre):", x.P[4].shape, "with", x.P[4].nnz, "non-zeros")
assert x.decision_states + 3 == x.states

# %% [markdown]
# ## Value iteration against policy iteration
# Both solve it exactly and agree: as X against random the best policy wins 191 times in
# 192.

# %%
from fractions import Fraction

vi = tttlab.mdp(seat="X", method="vi")
pi = tttlab.mdp(seat="X", method="pi")
assert abs(vi.value - pi.value) < 1e-12
assert Fraction(vi.value).limit_denominator(1000) == Fraction(191, 192)
print(vi.value, pi.value, vi.iterations, pi.iterations)

# %% [markdown]
# ## The best policy against random is not the safe one
# The MDP's policy maximises its winnings against *this* opponent. Against a best reply it
# may lose: it gambles where random rarely punishes. `perfect` never loses, and wins less
# often against random.

# %%
best_vs_random = tttlab.evaluate(vi.agent(), seat="X").X
safe = tttlab.evaluate("perfect", seat="X").X
print(
    "MDP policy: wins vs random",
    round(best_vs_random.win, 4),
    "worst case",
    best_vs_random.worst_case,
)
print("perfect:    wins vs random", round(safe.win, 4), "worst case", safe.worst_case)
assert best_vs_random.win > safe.win
assert safe.worst_case == 0

# %% [markdown]
# As O the same holds: the MDP scores 874/945 against random.

# %%
o = tttlab.mdp(seat="O")
assert Fraction(o.value).limit_denominator(10_000) == Fraction(874, 945)
o

# %% [markdown]
# ## Check your own
#
# The MDP text builds `P` (S × S × A) and `R` (S × A) at the top level of its notebook, with
# a table `state_id_lkt` that says what each state is: a position where X moves (type 0, a
# board id in which cell a weighs 3^(8 − a), with empty 0, X 1, O 2) or one of the terminal
# states (type 1; draw, win or loss). `tttlab.check` runs such a module in a box and judges
# every entry against the exact MDP, through the module's own numbering of the states.
#
# Here is a compact copy of the text's construction with a classic bug: an infeasible action
# stays put, as it should, but costs nothing. Without the soft constraint (−10) a policy may
# "pass" by playing on an occupied cell.

# %%
import tempfile
from pathlib import Path

STUDENT = """
import numpy as np

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
TURN = [6, 3, 0, 7, 4, 1, 8, 5, 2]  # new[i] = old[TURN[i]]: a quarter turn
FLIP = [2, 1, 0, 5, 4, 3, 8, 7, 6]  # left to right


def board_id(board):  # cell a weighs 3**(8 - a); empty 0, X 1, O 2
    return sum(v * 3 ** (8 - a) for a, v in enumerate(board))


def unique(board):  # the one with the smallest id among its rotations and flips
    images = []
    for b in (list(board), [board[i] for i in FLIP]):
        for _ in range(4):
            b = [b[i] for i in TURN]
            images.append(tuple(b))
    return min(images, key=board_id)


def wins(board, mark):
    return any(all(board[c] == mark for c in line) for line in LINES)


def after(board, a):  # X plays a, then O replies uniformly: {next state: probability}
    played = list(board)
    played[a] = 1
    if wins(played, 1):
        return {"win": 1.0}
    empty = [c for c in range(9) if played[c] == 0]
    if not empty:
        return {"draw": 1.0}
    found = {}
    for c in empty:
        reply = list(played)
        reply[c] = 2
        key = "loss" if wins(reply, 2) else unique(reply)
        found[key] = found.get(key, 0.0) + 1.0 / len(empty)
    return found


states, moves, seen = [(0,) * 9], [], {(0,) * 9}
for board in states:  # grows as new positions are found
    moves.append({a: after(board, a) for a in range(9) if board[a] == 0})
    for found in moves[-1].values():
        for key in found:
            if key not in ("win", "loss", "draw") and key not in seen:
                seen.add(key)
                states.append(key)

S, A = len(states) + 3, 9
number = {b: s for s, b in enumerate(states)} | {"draw": S - 3, "win": S - 2, "loss": S - 1}
reward = np.zeros(S)
reward[S - 2], reward[S - 1] = 1.0, -1.0
P = np.zeros((S, S, A))
R = np.zeros((S, A))
for s, options in enumerate(moves):
    for a in range(A):
        if a not in options:
            P[s, s, a] = 1.0  # an infeasible action stays put...
            R[s, a] = -10.0  # ...at a cost: the soft constraint
            continue
        for key, p in options[a].items():
            P[s, number[key], a] += p
        R[s, a] = P[s, :, a] @ reward
for s in range(S - 3, S):
    P[s, s, :] = 1.0  # the terminal states absorb
state_id_lkt = np.array(
    [[0, 1, board_id(b)] for b in states] + [[1, 0, -1], [1, 1, -2], [1, 2, -3]]
)
"""
module = Path(tempfile.mkdtemp(prefix="lesson5-")) / "ttt_mdp.py"
module.write_text(STUDENT.replace("R[s, a] = -10.0", "R[s, a] = 0.0"))
report = tttlab.check(module, exercise="mdp", only=["R"])
assert not report.ok
assert report.checks["R"].status == "fail"
print(report.summary())

# %% [markdown]
# The first state with an occupied cell is drawn, with the entry and what it should be. With
# the soft constraint back, both tables pass (a module that also defines
# `value_iteration(P, R, gamma)` or `policy_iteration(P, R, gamma)` has them checked against
# tttlab's exact values as well):

# %%
module.write_text(STUDENT)
fixed = tttlab.check(module, exercise="mdp", only=["P", "R"])
assert fixed.ok
print(fixed.summary())
