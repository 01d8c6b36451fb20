"""Tic-tac-toe as an MDP against a uniformly random O, as the MDP text builds it (seed 004),
exported from its notebook: lookup tables between board ids and states, the transition
matrix P (S x S x A) and the reward matrix R (S x A), all at the module's top level.

Differences from the text, for a file that ttt check can run: the helper module the text
loads with ``%run tic_tac_toe_aux_funcs.py`` is written out below; float64 instead of
float128 (not portable); the row-stochastic check compares with a tolerance (float64 sums of
1/7 are not exactly 1); nothing is dumped to files; and value and policy iteration are
defined, each taking ``(P, R, gamma)`` and returning ``(V, policy)``.
"""

import numpy as np

# ---- the helper module (tic_tac_toe_aux_funcs.py) ----

WEIGHTS = 3 ** np.arange(8, -1, -1)  # cell a has weight 3**(8 - a)
CELLS = np.arange(9).reshape(3, 3)
# the rows, the columns and the two diagonals, each as its three cells
STACKED = np.vstack([CELLS, CELLS.T, CELLS.diagonal(), np.fliplr(CELLS).diagonal()])
LINES = [tuple(line) for line in STACKED.tolist()]


def id_to_board(i):
    """The 3x3 board of an id: empty 0, X 1, O 2."""
    return ((i // WEIGHTS) % 3).reshape(3, 3)


def board_to_id(board):
    return int(np.dot(board.ravel(), WEIGHTS))


def board_to_ids(board):
    """Each board equal to this one by a flip and rotations: rows [id, flip, rotations]
    (the rotations and flip that take it to this board's unique one), smallest id first."""
    rows = []
    for flip in (0, 1):
        b = np.fliplr(board) if flip else board
        for rot in range(4):
            rows.append([board_to_id(np.rot90(b, rot)), flip, rot])
    rows = np.array(rows, dtype=np.int32)
    return rows[np.argsort(rows[:, 0], kind="stable")]


def winners(board):
    flat = board.ravel()
    found = set()
    for line in LINES:
        v = flat[line[0]]
        if v != 0 and flat[line[1]] == v and flat[line[2]] == v:
            found.add(int(v))
    return found


def board_info(board):
    """[type, who]: type -1 invalid, 1 terminal, 0 otherwise; who is the winner (0 for a
    draw) of a terminal board, else the next player."""
    xs = int(np.sum(board == 1))
    os_ = int(np.sum(board == 2))
    if xs - os_ not in (0, 1):
        return [-1, -1]
    won = winners(board)
    if len(won) > 1:
        return [-1, -1]
    if won == {1}:
        return [1, 1] if xs == os_ + 1 else [-1, -1]
    if won == {2}:
        return [1, 2] if xs == os_ else [-1, -1]
    if xs + os_ == 9:
        return [1, 0]
    return [0, 1 if xs == os_ else 2]


def get_actions(i):
    """The empty cells of board ``i``."""
    return [int(a) for a in np.flatnonzero(id_to_board(i).ravel() == 0)]


# ---- States ----

# Number of boards<->IDs to check.
IDs = 3**9
# Create the two lookup tables.
id_state_lkt = np.zeros((IDs, 5), dtype=np.int32)
state_id_lkt = np.empty([0, 3], dtype=np.int32)
# Loop on IDs.
state = 0
for i in range(IDs):
    board = id_to_board(i)
    ids = board_to_ids(board)
    # Skip this board if its unique one (a lower id) was already processed.
    if ids[0, 0] < i:
        continue
    info = board_info(board)
    if info[0] == -1:
        for id in ids:
            id_state_lkt[id[0], :] = [-1, -1, -1, -1, -1]
    elif info[0] == 0:
        if info[1] == 1:
            # X's turn: a state.
            for id in ids:
                id_state_lkt[id[0], :] = [info[0], info[1], id[1], id[2], state]
            state_id_lkt = np.append(state_id_lkt, [[info[0], info[1], ids[0, 0]]], axis=0)
            state += 1
        else:
            # O's turn: not a state.
            for id in ids:
                id_state_lkt[id[0], :] = [info[0], info[1], id[1], id[2], -1]
    else:
        # Terminal board: dummy values replaced below.
        if info[1] == 0:
            for id in ids:
                id_state_lkt[id[0], :] = [info[0], info[1], id[1], id[2], -2]
        elif info[1] == 1:
            for id in ids:
                id_state_lkt[id[0], :] = [info[0], info[1], id[1], id[2], -3]
        else:
            for id in ids:
                id_state_lkt[id[0], :] = [info[0], info[1], id[1], id[2], -4]
# Add terminal states to lookup table.
state_id_lkt = np.append(state_id_lkt, [[1, 0, -1]], axis=0)  # draw: state
state_id_lkt = np.append(state_id_lkt, [[1, 1, -2]], axis=0)  # win: state + 1
state_id_lkt = np.append(state_id_lkt, [[1, 2, -3]], axis=0)  # loss: state + 2
# Remap terminal states.
id_state_lkt[(id_state_lkt[:, -1] == -2), -1] = state
id_state_lkt[(id_state_lkt[:, -1] == -3), -1] = state + 1
id_state_lkt[(id_state_lkt[:, -1] == -4), -1] = state + 2

# Number of states, now only afterstates plus three.
S = state_id_lkt.shape[0]
# Number of actions.
A = 9

# ---- Transitions matrix ----

prec = np.float64

P = np.zeros((S, S, A), dtype=prec)
for s in range(S):
    info = state_id_lkt[s]
    if info[0] == 1:
        # Terminal state: all actions lead here.
        P[s, s, :] = 1.0
    else:
        actions_X = get_actions(info[2])
        if len(actions_X) == 0:
            raise RuntimeError("ERROR IN P GENERATION: NO POSSIBLE ACTIONS FOR X.")
        for a_X in range(A):
            if a_X in actions_X:
                id = np.copy(info[2])
                id_X = id + (3 ** (8 - a_X))
                if id_state_lkt[id_X, 0] == 1:
                    if id_state_lkt[id_X, 1] == 0:
                        P[s, S - 3, a_X] = 1.0  # draw
                    elif id_state_lkt[id_X, 1] == 1:
                        P[s, S - 2, a_X] = 1.0  # win
                    else:
                        raise RuntimeError("ERROR IN P GENERATION: TERMINAL STATE INVALID.")
                else:
                    actions_O = get_actions(id_X)
                    if len(actions_O) == 0:
                        raise RuntimeError("ERROR IN P GENERATION: EMPTY O ACTIONS.")
                    for a_O in actions_O:
                        id_O = id_X + 2 * (3 ** (8 - a_O))
                        sp = id_state_lkt[id_O, 4]
                        if sp < 0:
                            raise RuntimeError(f"ERROR IN P GENERATION: NEXT STATE {[id_O, sp]}.")
                        P[s, sp, a_X] += 1.0 / float(len(actions_O))
            else:
                # Impossible action: stay here.
                P[s, s, a_X] = 1.0

# ---- Row-stochasticity checks ----

sto = np.zeros((S, A))
for a in range(A):
    for i, row in enumerate(P[:, :, a]):
        sto[i, a] = np.sum(row)
        if not np.isclose(sto[i, a], 1.0, rtol=0.0, atol=1e-12):
            raise RuntimeError(f"ROW-STOCHASTICITY VIOLATED IN (ROW, ACTION) {(i, a)}.")
print("P is row-stochastic.")

# ---- Rewards matrix ----

reward_vector = np.zeros(S, dtype=prec)
reward_vector[-2] = 1.0
reward_vector[-1] = -1.0
# Set this for the least possible number of moves.
# reward_vector = np.full(S, -1.0, dtype=prec)
# reward_vector[-2] = 10.0

R = np.zeros((S, A), dtype=prec)
for s in range(S):
    info = state_id_lkt[s]
    if info[0] == 1:
        continue
    actions = get_actions(info[2])
    for a in range(A):
        if a in actions:
            R[s, a] = np.matmul(np.copy(P[s, :, a]), reward_vector)
        else:
            # Soft constraint for infeasible moves.
            R[s, a] = -10.0


# ---- Value and policy iteration ----


def value_iteration(P, R, gamma, theta=1e-12, max_sweeps=100_000):
    """Bellman optimality sweeps until no value changes by ``theta``: (V, policy)."""
    V = np.zeros(P.shape[0])
    for _ in range(max_sweeps):
        Q = R + gamma * np.einsum("sta,t->sa", P, V)
        new = Q.max(axis=1)
        done = np.max(np.abs(new - V)) < theta
        V = new
        if done:
            break
    Q = R + gamma * np.einsum("sta,t->sa", P, V)
    return V, Q.argmax(axis=1)


def policy_iteration(P, R, gamma, max_steps=1_000):
    """Exact evaluation (a linear solve), then greedy improvement, until stable:
    (V, policy). Needs gamma < 1 (the absorbing states make I - P singular at 1)."""
    n = P.shape[0]
    policy = R.argmax(axis=1)
    for _ in range(max_steps):
        P_pi = P[np.arange(n), :, policy]
        R_pi = R[np.arange(n), policy]
        V = np.linalg.solve(np.eye(n) - gamma * P_pi, R_pi)
        Q = R + gamma * np.einsum("sta,t->sa", P, V)
        best = Q.argmax(axis=1)
        keep = Q[np.arange(n), policy] >= Q[np.arange(n), best] - 1e-12
        new = np.where(keep, policy, best)
        if np.array_equal(new, policy):
            return V, policy
        policy = new
    return V, policy
