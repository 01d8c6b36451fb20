"""A functional, batched m,n,k environment in JAX with pgx's ``Env`` interface.

``init(key) -> State`` and ``step(state, action) -> State`` are pure functions of arrays with
no Python control flow on values, so ``jax.jit`` and ``jax.vmap`` take them as they are.

The environment is an exact duck type of ``pgx.Env`` rather than a subclass: pgx is not a
dependency of tttlab (only of its benchmarks and interface tests), and a subclass would make
it one. It keeps pgx's contract to the letter, so code written for pgx (its AlphaZero
example, ``mctx`` search loops, ``pgx.experimental.auto_reset``) runs on every board:

- ``current_player`` is a player id (0 or 1); player 0 plays X here, on every board;
- ``rewards`` has shape (2,), indexed by player id, non-zero only on the final step;
- an illegal action ends the game at once with −1 for the player who made it;
- stepping a finished game changes nothing and gives zero rewards;
- at a terminal state every action is marked legal (pgx does so to keep normalisations
  finite).

``legal_action_mask`` is a field, computed in ``step`` as pgx does: a loop that draws its
move from the mask then reads an array rather than recomputing it from the board (the
benchmark's categorical loop ran at 0.64 of pgx's speed when it was a property).
``observation`` is a property computed from the board when it is read: the random-play loop
never reads it, and search code reads it once per expanded node.

The state is kept small, since a loop that restarts finished games by a ``where`` over every
field (``tree.map(lambda a, b: jnp.where(done, a, b), init_state, state)``) pays for each
byte: 22 bytes a game on 3x3 (36 before). ``current_player`` (int32) and ``rewards`` (float32,
(2,)) are properties read from one int8 each (the game is zero-sum), and ``_step_count`` is
the stones on the board. ``replace`` takes them as pgx's wrappers pass them.
"""

from __future__ import annotations

import dataclasses
from functools import cached_property
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tttlab.game import Geometry

__all__ = ["Env", "State", "make"]

Array = jax.Array


@dataclasses.dataclass(frozen=True)
class State:
    """One game (or, under ``vmap``, a batch of games).

    Attributes:
        board: int8 cells, row-major, 0 empty, 1 X, 2 O (the base-3 digits of the state id).
        terminated: whether the game is over.
        truncated: always False (the game ends by itself; kept for pgx's wrappers).
        legal_action_mask: the empty cells; every cell once the game is over (pgx's
            convention, which keeps a softmax over legal moves finite).
        _player: int8 id of the player to move (read as ``current_player``).
        _reward: int8 reward of player 0 on this step (read as ``rewards``; player 1's is
            its negative).
        _shape: (rows, cols), static.

    Examples:
        >>> import jax
        >>> env = make("3x3k3")
        >>> init, step = jax.jit(env.init), jax.jit(env.step)
        >>> state = step(init(jax.random.PRNGKey(0)), 4)   # X takes the centre
        >>> int(state.current_player), state.board.tolist()
        (1, [0, 0, 0, 0, 1, 0, 0, 0, 0])
        >>> state.legal_action_mask.tolist()[3:6], bool(state.terminated)
        ([True, False, True], False)
    """

    board: Array
    terminated: Array
    truncated: Array
    legal_action_mask: Array
    _player: Array
    _reward: Array
    _shape: tuple[int, int]

    def replace(self, **changes: Any) -> State:
        """A copy with some fields changed (as pgx's states offer). ``current_player`` and
        ``rewards`` are taken too (the rewards zero-sum, as this game's are: player 0's is
        kept); ``_step_count`` is not, being the stones on the board."""
        if "current_player" in changes:
            changes["_player"] = jnp.asarray(changes.pop("current_player")).astype(jnp.int8)
        if "rewards" in changes:
            changes["_reward"] = jnp.asarray(changes.pop("rewards"))[..., 0].astype(jnp.int8)
        return dataclasses.replace(self, **changes)

    @property
    def current_player(self) -> Array:
        """int32 id of the player to move (0 plays X)."""
        return self._player.astype(jnp.int32)

    @property
    def rewards(self) -> Array:
        """float32 (..., 2), by player id, non-zero only on the step that ends the game."""
        return jnp.stack([self._reward, -self._reward], axis=-1).astype(jnp.float32)

    @property
    def _step_count(self) -> Array:
        """int32: stones on the board."""
        return jnp.sum(self.board != 0, axis=-1, dtype=jnp.int32)

    @property
    def observation(self) -> Array:
        """Board planes from the mover's side: (..., rows, cols, 2) booleans, plane 0 the
        mover's stones and plane 1 the opponent's (pgx's layout for tic-tac-toe)."""
        return _planes(self.board, self._player, self._shape)

    @property
    def env_id(self) -> str:
        return "tttlab"


jax.tree_util.register_dataclass(
    State,
    data_fields=["board", "terminated", "truncated", "legal_action_mask", "_player", "_reward"],
    meta_fields=["_shape"],
)


def _planes(board: Array, player: Array, shape: tuple[int, int]) -> Array:
    mine = (player + 1).astype(jnp.int32)[..., None]
    theirs = (2 - player).astype(jnp.int32)[..., None]
    planes = jnp.stack([board == mine, board == theirs], axis=-1)
    return planes.reshape((*board.shape[:-1], *shape, 2))


class Env:
    """An m,n,k game for ``jax``: ``make("4x4k4")``.

    Attributes:
        geometry: the board.

    Examples:
        A batch of games stepped at once, under ``jit`` and ``vmap`` as with pgx:

        >>> import jax, jax.numpy as jnp
        >>> env = make("4x4k4")
        >>> init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
        >>> states = init(jax.random.split(jax.random.PRNGKey(0), 1024))
        >>> states = step(states, jnp.zeros(1024, dtype=jnp.int32))  # every game: cell 0
        >>> states.board.shape, int(states.board[:, 0].sum()), env.num_actions
        ((1024, 16), 1024, 16)
    """

    # ``step`` is the fastest of the ways measured (benchmarks/vector_ways.py holds the others,
    # benchmarks/bench_vector_step.py times them; docs/benchmarks.md has the figures): the
    # stone written cell by cell (a cell takes it when it is the target, empty, and the game
    # goes on), int8 cells, a win read by gathering the lines, the occupied test by indexing
    # the cell, a full board from the count of stones.

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry
        self._lines = np.asarray(geometry.lines, dtype=np.int32).reshape(-1, geometry.k)
        self._shape = (geometry.rows, geometry.cols)

    # -- pgx's Env interface ------------------------------------------------------------
    def init(self, key: Array) -> State:
        """The empty board, X (player 0) to move. ``key`` is accepted for pgx's interface;
        the start is the same for every key."""
        del key
        return State(
            board=jnp.zeros(self.geometry.cells, jnp.int8),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            legal_action_mask=jnp.ones(self.geometry.cells, jnp.bool_),
            _player=jnp.int8(0),
            _reward=jnp.int8(0),
            _shape=self._shape,
        )

    def step(self, state: State, action: Array, key: Array | None = None) -> State:
        """Play ``action`` (a cell index) for the player to move. An illegal action (an
        occupied cell, or one off the board) ends the game: −1 for the mover, +1 for the
        other player. After the end, a step changes nothing and rewards are 0."""
        del key
        cells = self.geometry.cells
        action = jnp.asarray(action, jnp.int32)
        active = ~(state.terminated | state.truncated)
        # An action off the board (-1, or cells) is illegal, as pgx has it: it ends the game
        # and the mover loses. (Without the range check it would match no cell and pass.)
        on_board = (action >= 0) & (action < cells)
        legal = on_board & (state.board[jnp.clip(action, 0, cells - 1)] == 0)
        place = active & legal
        piece = state._player + jnp.int8(1)
        target = jnp.arange(cells, dtype=jnp.int32) == action
        # each cell from itself: it takes the stone when it is the target, empty, and the
        # game goes on (no per-game reduction or gather before the new board)
        board = jnp.where(active & target & (state.board == 0), piece, state.board)
        # the win and the full board each by one reduction: computed once, where a win read
        # cell by cell is copied into each field's fused update of the restart (on a CPU)
        won = place & jnp.any(jnp.all(board[self._lines] == piece, axis=-1))
        full = state._step_count + place.astype(jnp.int32) == cells
        return self._outcome(state, board, active, active & ~legal, won, full)

    @staticmethod
    def _outcome(
        state: State, board: Array, active: Array, illegal: Array, won: Array, full: Array
    ) -> State:
        """The state after a step: the new board, and the game ended by a win, an illegal
        action or a full board (the mover's reward +1, −1 or 0), the turn passed."""
        terminated = state.terminated | (active & (won | illegal | full))
        mover = jnp.where(won, jnp.int8(1), jnp.where(illegal, jnp.int8(-1), jnp.int8(0)))
        return State(
            board=board,
            terminated=terminated,
            truncated=state.truncated,
            legal_action_mask=(board == 0) | terminated,
            _player=jnp.where(active, 1 - state._player, state._player),
            _reward=jnp.where(state._player == 0, mover, -mover),
            _shape=state._shape,
        )

    def observe(self, state: State, player_id: Array | None = None) -> Array:
        """Board planes (rows, cols, 2) from ``player_id``'s side (default: the mover's)."""
        player = state._player if player_id is None else jnp.asarray(player_id)
        return _planes(state.board, player, self._shape)

    @property
    def id(self) -> str:
        return f"tttlab/{self.geometry.name}"

    @property
    def version(self) -> str:
        return "v1"

    @property
    def num_players(self) -> int:
        return 2

    @property
    def num_actions(self) -> int:
        return self.geometry.cells

    @cached_property
    def observation_shape(self) -> tuple[int, ...]:
        return (self.geometry.rows, self.geometry.cols, 2)

    # -- tttlab's helpers ---------------------------------------------------------------
    def from_boards(self, boards: Any) -> State:
        """States for boards given as cell arrays (..., cells) of 0/1/2, e.g. the
        ``boards`` of a :class:`tttlab.game.StateSpace`. Only reachable, unfinished
        positions are meant: the side to move is read off the stone counts."""
        board = jnp.asarray(boards, jnp.int8)
        batch = board.shape[:-1]
        return State(
            board=board,
            terminated=jnp.zeros(batch, jnp.bool_),
            truncated=jnp.zeros(batch, jnp.bool_),
            legal_action_mask=board == 0,
            _player=(jnp.sum(board != 0, axis=-1) % 2).astype(jnp.int8),
            _reward=jnp.zeros(batch, jnp.int8),
            _shape=self._shape,
        )


def make(board: str | Geometry = "3x3k3") -> Env:
    """The environment for a board name (``"4x4k4"``, ``"3x4k3"``) or a Geometry.

    Examples:
        >>> env = make("3x4k3")
        >>> env.num_actions, env.observation_shape
        (12, (3, 4, 2))
    """
    geometry = board if isinstance(board, Geometry) else Geometry.parse(board)
    return Env(geometry)
