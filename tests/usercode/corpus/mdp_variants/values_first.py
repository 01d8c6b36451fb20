

def value_iteration(P, R, gamma, theta=1e-10):
    """The values and the greedy policy, as plain lists."""
    V = np.zeros(len(P))
    while True:
        Q = R + gamma * np.einsum("ija,j->ia", P, V)
        delta = np.abs(Q.max(axis=1) - V).max()
        V = Q.max(axis=1)
        if delta < theta:
            break
    Q = R + gamma * np.einsum("ija,j->ia", P, V)
    return V.tolist(), [int(a) for a in Q.argmax(axis=1)]
