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
