

def value_iteration(P, R, gamma, n_sweeps):
    """A fixed number of Bellman optimality sweeps (the game ends within five moves)."""
    V = np.zeros(P.shape[0])
    for k in range(n_sweeps):
        V = (R + gamma * np.einsum("sta,t->sa", P, V)).max(axis=1)
    policy = (R + gamma * np.einsum("sta,t->sa", P, V)).argmax(axis=1)
    return V, policy
