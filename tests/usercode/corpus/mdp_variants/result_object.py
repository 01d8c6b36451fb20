

class Solution:
    """What value iteration found: the values and a greedy policy."""

    def __init__(self, values, policy):
        self.values = values
        self.policy = policy


def value_iteration(P, R, *, discount=0.5, theta=1e-10, max_sweeps=10_000):
    V = np.zeros(len(R))
    for _ in range(max_sweeps):
        Q = R + discount * np.einsum("sta,t->sa", P, V)
        if np.max(np.abs(Q.max(axis=1) - V)) < theta:
            break
        V = Q.max(axis=1)
    return Solution(Q.max(axis=1), Q.argmax(axis=1))
