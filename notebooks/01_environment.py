# %% [markdown]
# # 1. The environment and its states
#
# A position is a board of X, O and empty cells. Its **id** is a number in base 3: cell *i*
# weighs 3**i, an empty cell counts 0, X counts 1 and O counts 2 (the course's state hash).
# Every reachable position of a board fits in a table, sorted by id.

# %%
import tttlab
from tttlab.game import Geometry, Position, state_space

p = tttlab.position("X.O/.X./..O")
p  # drawn as SVG

# %% [markdown]
# The id of this position: X in cells 0 and 4, O in cells 2 and 8.

# %%
assert p.id == 1 * 3**0 + 2 * 3**2 + 1 * 3**4 + 2 * 3**8
print(p.id, p.to_move, p.legal_moves)

# %% [markdown]
# Moves are 0-based cells, row by row. X plays the middle of the right column; then O must
# block the diagonal.

# %%
q = p.apply(5)
assert q.winner is None and not q.is_terminal
won = q.apply(1).apply(3)  # O elsewhere, X completes the middle row
assert won.winner is not None and won.winner.name == "X"
won

# %% [markdown]
# ## Every position
# Enumerating the board gives 5,478 positions, 958 of them final: 626 won by X, 316 by O,
# and 16 draws.

# %%
space = state_space(Geometry(3, 3, 3))
counts = space.counts()
assert space.size == 5478
assert counts["terminal"] == 958
assert (counts["x_wins"], counts["o_wins"], counts["draws"]) == (626, 316, 16)
counts

# %% [markdown]
# ## Symmetry
# Rotations and reflections map positions to positions with the same value. Up to these
# eight symmetries there are 765 positions (627 not final). A position and its mirror image
# share one canonical id.

# %%
assert counts["classes"] == 765 and counts["open_classes"] == 627
mirror = tttlab.position("O.X/.X./O..")
assert p.canonical_id == mirror.canonical_id
print(p.canonical_id)

# %% [markdown]
# The game tree (every sequence of moves) is much bigger than the set of positions:
# 549,946 nodes and 255,168 complete games.

# %%
tree = space.game_tree()
assert tree["nodes"] == 549_946 and tree["games"] == 255_168
tree
