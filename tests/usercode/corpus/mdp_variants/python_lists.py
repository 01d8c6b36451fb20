

# P and R are nested lists: the sweeps are plain Python over each action's next states.


def value_iteration(P, R, gamma, tol=1e-10):
    S, A = len(P), len(R[0])
    nexts = [[[(t, P[s][t][a]) for t in range(S) if P[s][t][a]] for a in range(A)] for s in range(S)]

    def q(s, a, V):
        return R[s][a] + gamma * sum(p * V[t] for t, p in nexts[s][a])

    V = [0.0] * S
    while True:
        new = [max(q(s, a, V) for a in range(A)) for s in range(S)]
        change = max(abs(x - y) for x, y in zip(new, V))
        V = new
        if change < tol:
            break
    policy = [max(range(A), key=lambda a: q(s, a, V)) for s in range(S)]
    return V, policy
