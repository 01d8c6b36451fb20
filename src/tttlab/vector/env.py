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
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from functools import cached_property
from typing import Any, ClassVar

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
        current_player: int32 id of the player to move (0 plays X).
        rewards: float32 (2,), by player id.
        terminated: whether the game is over.
        legal_action_mask: the empty cells; every cell once the game is over (pgx's
            convention, which keeps a softmax over legal moves finite).
        truncated: always False (the game ends by itself; kept for pgx's wrappers).
        _step_count: stones on the board.
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
    current_player: Array
    rewards: Array
    terminated: Array
    truncated: Array
    legal_action_mask: Array
    _step_count: Array
    _shape: tuple[int, int]

    def replace(self, **changes: Any) -> State:
        """A copy with some fields changed (as pgx's states offer)."""
        return dataclasses.replace(self, **changes)

    @property
    def observation(self) -> Array:
        """Board planes from the mover's side: (..., rows, cols, 2) booleans, plane 0 the
        mover's stones and plane 1 the opponent's (pgx's layout for tic-tac-toe)."""
        return _planes(self.board, self.current_player, self._shape)

    @property
    def env_id(self) -> str:
        return "tttlab"


jax.tree_util.register_dataclass(
    State,
    data_fields=[
        "board",
        "current_player",
        "rewards",
        "terminated",
        "truncated",
        "legal_action_mask",
        "_step_count",
    ],
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

    # How ``step`` is written, fixed per class so that ``benchmarks/bench_vector_step.py``
    # can time every choice against pgx on a machine's own backend (a test checks that each
    # plays alike): the stone written by a scatter, by a one-hot ``where`` gated on the
    # move's legality, or cell by cell ("cellwise": a cell takes the stone when it is the
    # target, empty, and the game goes on, so the new board needs no per-game reduction or
    # gather); int8 or int32 cells; a win read by one gather of every line's cells or line
    # by line from static slices; the occupied test by a one-hot reduction or by indexing.
    # Chosen on an H200 (random self-play in one jit, batches 1,024 to 1,048,576): slices
    # took batch 16,384 from 0.74x of pgx to 1.0x and more; cellwise is one kernel fewer
    # per step than the gated write (13, pgx's count), which the launch-bound small batches
    # pay for (1,024: 0.87x -> 0.96x). A full board read from the new board's cells
    # ("board") rather than from the move count ("count") is one kernel fewer again (12):
    # 1.14-1.15x pgx at 1,024-4,096 where the count's step was 0.92-0.96x. On the 2-core CPU
    # these are within its noise of the earlier scatter/gather/one-hot step or ahead
    # (docs/benchmarks.md has the figures).
    _write: str = "cellwise"
    _cells: Any = jnp.int8
    _win: str = "slices"
    _legal: str = "gather"
    _full: str = "board"
    #: Each choice's values, checked when an environment is made.
    WAYS: ClassVar[dict[str, tuple[Any, ...]]] = {
        "_write": ("scatter", "onehot", "cellwise"),
        "_cells": (jnp.int8, jnp.int32),
        "_win": ("gather", "slices"),
        "_legal": ("onehot", "gather"),
        "_full": ("count", "board"),
    }

    def __init__(self, geometry: Geometry) -> None:
        for name, ways in self.WAYS.items():
            if getattr(self, name) not in ways:
                raise ValueError(f"{name} must be one of {ways}, not {getattr(self, name)!r}")
        self.geometry = geometry
        self._lines = np.asarray(geometry.lines, dtype=np.int32).reshape(-1, geometry.k)
        self._shape = (geometry.rows, geometry.cols)

    # -- pgx's Env interface ------------------------------------------------------------
    def init(self, key: Array) -> State:
        """The empty board, X (player 0) to move. ``key`` is accepted for pgx's interface;
        the start is the same for every key."""
        del key
        return State(
            board=jnp.zeros(self.geometry.cells, self._cells),
            current_player=jnp.int32(0),
            rewards=jnp.zeros(2, jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            legal_action_mask=jnp.ones(self.geometry.cells, jnp.bool_),
            _step_count=jnp.int32(0),
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
        target = jnp.arange(cells, dtype=jnp.int32) == action
        # An action off the board (-1, or cells) is illegal, as pgx has it: it ends the game
        # and the mover loses. (Without the range check it would match no cell and pass.)
        on_board = (action >= 0) & (action < cells)
        if self._legal == "onehot":
            legal = on_board & ~jnp.any(target & (state.board != 0))
        else:
            legal = on_board & (state.board[jnp.clip(action, 0, cells - 1)] == 0)
        place = active & legal
        piece = (state.current_player + 1).astype(self._cells)
        if self._write == "scatter":
            board = jnp.where(place, state.board.at[action].set(piece, mode="drop"), state.board)
        elif self._write == "onehot":
            board = jnp.where(place & target, piece, state.board)
        else:  # "cellwise": each cell from itself (the target, empty, the game going on)
            board = jnp.where(active & target & (state.board == 0), piece, state.board)
        mine = board == piece
        if self._win == "gather":
            won = place & jnp.any(jnp.all(mine[self._lines], axis=-1))
        else:
            lines = [functools.reduce(operator.and_, (mine[c] for c in ln)) for ln in self._lines]
            won = place & functools.reduce(operator.or_, lines)
        count = state._step_count + place.astype(jnp.int32)
        if self._full == "count":
            full = count == cells
        else:  # "board": every cell of the new board taken, one static slice each
            full = functools.reduce(operator.and_, (board[c] != 0 for c in range(cells)))
        illegal = active & ~legal
        ended = won | illegal | full
        mover = jnp.where(won, 1.0, jnp.where(illegal, -1.0, 0.0)).astype(jnp.float32)
        seat = jnp.arange(2, dtype=jnp.int32) == state.current_player
        rewards = jnp.where(seat, mover, -mover)
        terminated = state.terminated | (active & ended)
        return State(
            board=board,
            current_player=jnp.where(active, 1 - state.current_player, state.current_player),
            rewards=rewards,
            terminated=terminated,
            truncated=state.truncated,
            legal_action_mask=(board == 0) | terminated,
            _step_count=count,
            _shape=state._shape,
        )

    def observe(self, state: State, player_id: Array | None = None) -> Array:
        """Board planes (rows, cols, 2) from ``player_id``'s side (default: the mover's)."""
        player = state.current_player if player_id is None else jnp.asarray(player_id)
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
        board = jnp.asarray(boards, self._cells)
        count = jnp.sum(board != 0, axis=-1).astype(jnp.int32)
        batch = board.shape[:-1]
        return State(
            board=board,
            current_player=count % 2,
            rewards=jnp.zeros((*batch, 2), jnp.float32),
            terminated=jnp.zeros(batch, jnp.bool_),
            truncated=jnp.zeros(batch, jnp.bool_),
            legal_action_mask=board == 0,
            _step_count=count,
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
