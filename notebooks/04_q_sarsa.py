# %% [markdown]
# # 4. Q-learning and SARSA
#
# One table Q(s, a) from X's side: X maximises it and O minimises it. Q-learning's target is
# the best next value (off-policy); SARSA's is the value of the move actually chosen
# (on-policy). ε explores, α is the step size and γ the discount.

# %%
import tttlab

q = tttlab.train("q", episodes=20_000, seed=0, curve=True, eval_every=2_000, progress=False)
sarsa = tttlab.train("sarsa", episodes=20_000, seed=0, curve=True, eval_every=2_000, progress=False)

# %% [markdown]
# ## Learning curves, exact
# At each point the agent is evaluated over every position it can reach: the share of its
# decisions that are optimal, its score against random, and its worst case.

# %%
q.curve

# %%
sarsa.curve

# %%
final_q = q.curve.records[-1]
assert final_q["X"]["worst_case"] == 0 and final_q["O"]["worst_case"] == 0
print("Q-learning optimal share:", final_q["X"]["optimal_share"], final_q["O"]["optimal_share"])
print("SARSA optimal share:     ", sarsa.curve.records[-1]["X"]["optimal_share"])

# %% [markdown]
# ## ε, α and γ
# At a small budget (5,000 games) exploration has a sweet spot: with ε = 0 Q-learning
# explores only through its random tie-breaking and misses some positions; with ε = 0.3 its
# self-play opponent is too noisy to learn sharp values. The default ε = 0.1 makes all three
# seeds unbeatable. (γ < 1 would make a sooner win worth more than a later one.)


# %%
def unbeatable_seeds(**options):
    return sum(
        tttlab.evaluate(
            tttlab.train("q", episodes=5_000, seed=s, progress=False, **options)
        ).unbeatable
        for s in range(3)
    )


found = {eps: unbeatable_seeds(epsilon=eps) for eps in (0.0, 0.1, 0.3)}
print("seeds of 3 unbeatable, by ε:", found)
assert found[0.1] == 3 and found[0.0] < 3 and found[0.3] < 3

# %% [markdown]
# ## The arena
# A round robin: each pair plays both sides. Nobody beats `perfect`, and both learners beat
# random.

# %%
result = tttlab.arena(
    [q, sarsa, "perfect", "random"], games=50, seed=0, names=["q", "sarsa", "perfect", "random"]
)
standings = result.to_dict()["standings"]
assert standings["perfect"]["loss"] == 0
assert standings["q"]["win"] > standings["random"]["win"]
result
