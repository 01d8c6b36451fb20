

def value_iteration(P, R, gamma):
    """Only the optimal values: the policy is read from them elsewhere."""
    V = np.zeros(R.shape[0])
    for sweep in range(1000):
        old = V
        V = np.max(R + gamma * np.einsum("sta,t->sa", P, V), axis=1)
        if np.allclose(V, old, rtol=0, atol=1e-12):
            break
    return V
