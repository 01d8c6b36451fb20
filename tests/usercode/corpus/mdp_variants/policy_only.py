

def policy_iteration(P, R, gamma):
    """Exact evaluation by a linear solve, greedy improvement: the optimal policy, a list."""
    n = P.shape[0]
    rows = np.arange(n)
    policy = np.array([int(np.argmax(R[s])) for s in range(n)])
    while True:
        V = np.linalg.solve(np.eye(n) - gamma * P[rows, :, policy], R[rows, policy])
        Q = R + gamma * np.einsum("sta,t->sa", P, V)
        best = Q.argmax(axis=1)
        stable = Q[rows, policy] >= Q[rows, best] - 1e-12
        if stable.all():
            return [int(a) for a in policy]
        policy = np.where(stable, policy, best)
