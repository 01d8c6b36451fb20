

# The game is episodic: no discount (gamma = 1), and the iterations take none.


def value_iteration(P, R, v0, epsilon=1e-9):
    V = np.array(v0, dtype=float)
    while True:
        Q = R + np.einsum("sta,t->sa", P, V)
        new = Q.max(axis=1)
        if np.abs(new - V).max() < epsilon:
            return Q.argmax(axis=1), new
        V = new


def policy_iteration(P, R, v0, pi0, theta=1e-9):
    """Iterative evaluation (a linear solve would be singular without a discount), from a
    feasible initial policy."""
    n = len(P)
    pi = np.array(pi0)
    V = np.array(v0, dtype=float)
    while True:
        P_pi = P[np.arange(n), :, pi]
        R_pi = R[np.arange(n), pi]
        while True:
            new = R_pi + P_pi @ V
            if np.abs(new - V).max() < theta:
                V = new
                break
            V = new
        better = (R + np.einsum("sta,t->sa", P, V)).argmax(axis=1)
        if (better == pi).all():
            return pi, V
        pi = better
