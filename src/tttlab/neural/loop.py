"""What the network learners share: a budget counted in whole iterations of self-play
games, one jitted iteration over a carry of arrays, and checkpoints of that carry."""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from tttlab.agents.network import NetworkAgent
from tttlab.errors import ConfigError, TrainingDiverged
from tttlab.neural.network import Network, init_network, to_params
from tttlab.vector import State, make

__all__ = [
    "IterationTrainer",
    "Replay",
    "mover_reward",
    "negamax_backward",
    "ring_write",
    "uniform_legal",
]


def uniform_legal(key: jax.Array, state: State) -> jax.Array:
    """A uniformly random legal move in each game of a batch."""
    noise = jax.random.uniform(key, state.legal_action_mask.shape)
    return jnp.argmax(jnp.where(state.legal_action_mask, noise, -1.0), axis=-1)


def mover_reward(state: State, mover: jax.Array) -> jax.Array:
    """The reward of ``mover`` (a player id per game) in each game of a batch."""
    return jnp.take_along_axis(state.rewards, mover[:, None], axis=1)[:, 0]


def negamax_backward(x: jax.Array, done: jax.Array, factor: float = 1.0) -> jax.Array:
    """Backwards over plies (time first: ``[plies, games]``), each from its mover's side:
    y_t = x_t − factor · y_{t+1}, the next ply being the opponent's, and y_t = x_t where
    the game ended at ply t (``done``). AlphaZero's value targets are this over the rewards
    (factor 1); PPO's advantages over the TD errors (factor γλ)."""

    def back(later: jax.Array, step: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        value, end = step
        y = value - factor * jnp.where(end, 0.0, later)
        return y, y

    _, y = jax.lax.scan(back, jnp.zeros_like(x[0]), (x, done), reverse=True)
    return jnp.asarray(y)


class Replay(eqx.Module):
    """A ring of recent positions: ``data`` is a pytree of arrays of ``capacity`` rows; each
    iteration writes its rows at ``cursor`` (capacities are whole multiples of them)."""

    data: Any
    cursor: jax.Array  # int32: the next slot to write
    filled: jax.Array  # int32: slots written so far (at most capacity)

    @classmethod
    def empty(cls, data: Any) -> Replay:
        return cls(data, jnp.int32(0), jnp.int32(0))

    def write(self, fresh: Any) -> Replay:
        """This replay with the rows of ``fresh`` (the same pytree) written in."""
        leaves, treedef = jax.tree_util.tree_flatten(self.data)
        new = jax.tree_util.tree_leaves(fresh)
        rows, capacity = new[0].shape[0], leaves[0].shape[0]
        written = ring_write(tuple(leaves), tuple(new), self.cursor)
        return Replay(
            jax.tree_util.tree_unflatten(treedef, written),
            (self.cursor + rows) % capacity,
            jnp.minimum(self.filled + rows, capacity),
        )

    def pick(self, key: jax.Array, count: int) -> Any:
        """``count`` rows drawn uniformly (with repeats) from those written."""
        rows = jax.random.randint(key, (count,), 0, self.filled)
        return jax.tree_util.tree_map(lambda a: a[rows], self.data)

    def write_kept(self, fresh: Any, keep: jax.Array) -> Replay:
        """This replay with only the rows of ``fresh`` that ``keep`` marks, as the newest
        rows behind the cursor: every row is written (the kept ones first, wrapping round
        the ring) and the cursor moves past the kept ones only, so the rows left over are
        overwritten next time. Read with :meth:`pick_recent`, which never reaches them; the
        capacity must exceed the rows written at once by the rows it should hold."""
        leaves, treedef = jax.tree_util.tree_flatten(self.data)
        new = jax.tree_util.tree_leaves(fresh)
        rows, capacity = new[0].shape[0], leaves[0].shape[0]
        order = jnp.argsort(~keep, stable=True)  # the kept rows first, in their order
        kept = keep.sum().astype(jnp.int32)
        slots = (self.cursor + jnp.arange(rows, dtype=jnp.int32)) % capacity
        written = [a.at[slots].set(b[order]) for a, b in zip(leaves, new, strict=True)]
        return Replay(
            jax.tree_util.tree_unflatten(treedef, written),
            (self.cursor + kept) % capacity,
            jnp.minimum(self.filled + kept, capacity - rows),
        )

    def pick_recent(self, key: jax.Array, count: int) -> Any:
        """``count`` rows drawn uniformly (with repeats) from the ``filled`` rows just
        behind the cursor (what :meth:`write_kept` kept)."""
        capacity = jax.tree_util.tree_leaves(self.data)[0].shape[0]
        back = jax.random.randint(key, (count,), 1, jnp.maximum(self.filled, 1) + 1)
        rows = (self.cursor - back) % capacity
        return jax.tree_util.tree_map(lambda a: a[rows], self.data)


class IterationTrainer:
    """Runs jitted iterations of ``config.games_per_iteration`` games each.

    A subclass calls :meth:`_prepare` (which sets the board, the symmetries, the optimiser
    and the replay's size, and gives the first key and network), sets ``self.carry`` (an
    equinox module of arrays), then calls ``super().__init__()``; it defines
    ``_iterate(carry, iteration) -> (carry, metrics)`` and ``_playing`` (the network that
    plays).
    """

    #: The learner's name in agent files.
    algorithm: str
    config: Any
    carry: Any

    def __init__(self) -> None:
        self.iteration = 0
        self._step = eqx.filter_jit(self._iterate)

    def _prepare(self, config: Any, optimizer: Any) -> tuple[jax.Array, Network]:
        self.config = config
        self.env = make(config.geometry)
        self.cells = config.geometry.cells
        self.perms = jnp.asarray(np.array(config.geometry.symmetries, dtype=np.int32))
        self.optimizer = optimizer
        self.per_iteration = config.games_per_iteration * self.cells
        key, init_key = jax.random.split(jax.random.PRNGKey(config.seed))
        return key, init_network(config.architecture, init_key)

    def _iterate(self, carry: Any, iteration: jax.Array) -> tuple[Any, dict[str, jax.Array]]:
        raise NotImplementedError

    def _playing(self) -> Network:
        raise NotImplementedError

    def agent(self, label: str = "") -> NetworkAgent:
        """The network that plays, as it is now, as a (numpy) agent."""
        architecture = self.config.architecture
        return NetworkAgent(
            self.algorithm,
            self.config.geometry,
            architecture,
            to_params(architecture, self._playing()),
            label=label,
        )

    @property
    def done(self) -> int:
        """Self-play games played so far."""
        return int(self.iteration * self.config.games_per_iteration)

    def run(self, iterations: int = 1) -> dict[str, float]:
        """Run up to ``iterations`` iterations (never past the budget); the last metrics.

        An iteration after which the playing network's parameters are not all finite is
        undone, and :class:`~tttlab.errors.TrainingDiverged` names it: the trainer keeps
        the last finite state, so no agent, checkpoint or curve point is ever NaN."""
        metrics: dict[str, float] = {}
        for _ in range(min(iterations, self.config.iterations - self.iteration)):
            before = self.carry
            self.carry, found = self._step(self.carry, jnp.int32(self.iteration))
            if not bool(_finite(self._playing())):
                self.carry = before
                raise TrainingDiverged(
                    f"{self.algorithm} diverged at iteration {self.iteration + 1:,} of "
                    f"{self.config.iterations:,} (after {self.done:,} self-play games): its "
                    "network's parameters are no longer finite"
                )
            self.iteration += 1
            metrics = {k: float(v) for k, v in found.items()}
        return metrics

    def checkpoint_arrays(self) -> dict[str, np.ndarray]:
        """Everything needed to continue exactly: every array of the carry, by leaf."""
        leaves = jax.tree_util.tree_leaves(self.carry)
        return {f"state.{i:03d}": np.asarray(leaf) for i, leaf in enumerate(leaves)}

    def restore(self, arrays: dict[str, np.ndarray], iteration: int) -> None:
        """Continue from :meth:`checkpoint_arrays`; ValueError when they do not fit."""
        leaves, treedef = jax.tree_util.tree_flatten(self.carry)
        if len(arrays) != len(leaves):
            raise ConfigError("the checkpoint holds another training state")
        restored = []
        for i, leaf in enumerate(leaves):
            found = arrays.get(f"state.{i:03d}")
            if found is None or found.shape != leaf.shape or found.dtype != leaf.dtype:
                raise ConfigError("the checkpoint holds another training state")
            restored.append(jnp.asarray(found))
        if not 0 <= iteration <= self.config.iterations:
            raise ConfigError("the checkpoint's progress does not fit its budget")
        self.carry = jax.tree_util.tree_unflatten(treedef, restored)
        self.iteration = iteration


@eqx.filter_jit
def _finite(network: Network) -> jax.Array:
    """Whether every parameter of ``network`` is finite (one reduction on the device)."""
    leaves = jax.tree_util.tree_leaves(eqx.filter(network, eqx.is_inexact_array))
    return jnp.all(jnp.stack([jnp.isfinite(leaf).all() for leaf in leaves]))


def ring_write(
    old: tuple[jax.Array, ...], new: tuple[jax.Array, ...], cursor: jax.Array
) -> list[jax.Array]:
    """Write ``new`` into the replay arrays ``old`` at ``cursor`` (the batch never wraps:
    capacities are whole multiples of it)."""
    return [
        jax.lax.dynamic_update_slice_in_dim(a, b, cursor, axis=0)
        for a, b in zip(old, new, strict=True)
    ]
