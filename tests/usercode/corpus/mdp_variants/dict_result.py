

def value_iteration(P, R, gamma, epsilon=1e-9, max_iterations=1000):
    V = np.zeros(P.shape[0])
    for _ in range(max_iterations):
        Q = R + gamma * np.tensordot(P, V, axes=([1], [0]))
        new_V = np.max(Q, axis=1)
        if np.max(np.abs(new_V - V)) < epsilon:
            V = new_V
            break
        V = new_V
    Q = R + gamma * np.tensordot(P, V, axes=([1], [0]))
    return {"values": V, "policy": np.argmax(Q, axis=1)}
