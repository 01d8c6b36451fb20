

# ---- a small dynamic-programming library, with the signatures the text's authors use ----


def evaluate_policy(P, R, gamma, pi, v, tol=1.0e-6):
    """Sweeps the policy's own Bellman equation from v until it stops moving."""
    n = P.shape[0]
    P_pi = np.array([P[s, :, pi[s]] for s in range(n)])
    R_pi = np.array([R[s, pi[s]] for s in range(n)])
    while True:
        new = R_pi + gamma * P_pi.dot(v)
        if np.linalg.norm(new - v) < tol:
            return new
        v = new


def greedy(P, R, gamma, v):
    n, m = P.shape[0], R.shape[1]
    pi = np.zeros(n, dtype=np.int64)
    for s in range(n):
        q = [R[s, a] + gamma * P[s, :, a].dot(v) for a in range(m)]
        pi[s] = np.argmax(q)
    return pi


def policy_iteration(P, R, gamma, v_init, pi_init, tol=1.0e-6):
    """Evaluation and improvement in turn, from a given policy and value: (policy, value)."""
    pi, v = np.copy(pi_init), np.copy(v_init)
    while True:
        v = evaluate_policy(P, R, gamma, pi, v, tol)
        better = greedy(P, R, gamma, v)
        if np.array_equal(better, pi):
            return pi, v
        pi = better


def value_iteration(P, R, gamma, v_init, tol=1.0e-6):
    """Bellman optimality sweeps from a given value: (policy, value)."""
    n, m = P.shape[0], R.shape[1]
    pi = np.zeros(n)  # the policy kept in a float array
    v = np.copy(v_init)
    while True:
        new = np.zeros(n)
        for s in range(n):
            q = [R[s, a] + gamma * P[s, :, a].dot(v) for a in range(m)]
            pi[s] = np.argmax(q)
            new[s] = q[int(pi[s])]
        if np.linalg.norm(new - v) < tol:
            return pi, new
        v = new
