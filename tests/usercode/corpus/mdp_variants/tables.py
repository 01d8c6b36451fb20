"""Tic-tac-toe for X against a uniformly random O as an MDP, the MDP text's tables built
another way: the positions are found by playing from the empty board (each kept as the
image with the smallest id under the board's rotations and flips), not by a loop over all
3**9 ids. The tables are the text's: state_id_lkt (type, winner or next player, board id),
id_state_lkt (..., the state last), P (S x S x A) and R (S x A), with the draw, win and
loss states last. The iteration variants of this folder are appended to this file.
"""

import numpy as np

PREC = np.float64
# the soft constraint: an infeasible move stays put at this cost
SOFT = -10.0
# the reward on entering each kind of state (the text's standard rewards)
ENTER = {"state": 0.0, "draw": 0.0, "win": 1.0, "loss": -1.0}

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
ROTATE = [6, 3, 0, 7, 4, 1, 8, 5, 2]  # new[i] = old[ROTATE[i]]: a quarter turn
MIRROR = [2, 1, 0, 5, 4, 3, 8, 7, 6]
ENDS = ("draw", "win", "loss")


def to_id(board):
    """Cell a weighs 3**(8 - a); empty 0, X 1, O 2."""
    n = 0
    for c in board:
        n = 3 * n + c
    return n


def images(board):
    found = []
    b = tuple(board)
    for _ in range(4):
        b = tuple(b[i] for i in ROTATE)
        found += [b, tuple(b[i] for i in MIRROR)]
    return found


def unique(board):
    return min(images(board), key=to_id)


def ended(board):
    """'win', 'loss' or 'draw' once the game is over, else None."""
    for mark, name in ((1, "win"), (2, "loss")):
        if any(all(board[c] == mark for c in line) for line in LINES):
            return name
    return "draw" if 0 not in board else None


positions = [unique((0,) * 9)]
index = {positions[0]: 0}
moves = []  # per position: {action: {next position or end: probability}}
for board in positions:  # grows as positions are found
    options = {}
    for a in range(9):
        if board[a]:
            continue
        played = list(board)
        played[a] = 1
        if ended(played):
            options[a] = {ended(played): 1.0}
            continue
        free = [c for c in range(9) if played[c] == 0]
        spread = {}
        for c in free:
            reply = list(played)
            reply[c] = 2
            nxt = ended(reply) or unique(reply)
            if nxt not in ENDS and nxt not in index:
                index[nxt] = len(positions)
                positions.append(nxt)
            spread[nxt] = spread.get(nxt, 0.0) + 1.0 / len(free)
        options[a] = spread
    moves.append(options)

S, A = len(positions) + 3, 9
for k, name in enumerate(ENDS):
    index[name] = S - 3 + k

state_id_lkt = np.array(
    [[0, 1, to_id(b)] for b in positions] + [[1, 0, -1], [1, 1, -2], [1, 2, -3]], dtype=np.int32
)
id_state_lkt = np.full((3**9, 5), -1, dtype=np.int32)
for s, board in enumerate(positions):
    for image in images(board):
        id_state_lkt[to_id(image)] = [0, 1, 0, 0, s]

enter = np.full(S, ENTER["state"], dtype=PREC)
for name in ENDS:
    enter[index[name]] = ENTER[name]

P = np.zeros((S, S, A), dtype=PREC)
R = np.zeros((S, A), dtype=PREC)
for s, options in enumerate(moves):
    for a in range(A):
        if a not in options:
            P[s, s, a] = 1.0
            R[s, a] = SOFT
            continue
        for nxt, p in options[a].items():
            P[s, index[nxt], a] += p
        R[s, a] = P[s, :, a] @ enter
for name in ENDS:
    P[index[name], index[name], :] = 1.0  # the game is over: it stays over, for nothing

# ---- iteration ----
