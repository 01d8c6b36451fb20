"""What the network learners share: a budget counted in whole iterations of self-play
games, one jitted iteration over a carry of arrays, and checkpoints of that carry."""

from __future__ import annotations

import dataclasses
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from tttlab.errors import ConfigError
from tttlab.hyperparameters import Schedule, for_learner
from tttlab.vector import State

__all__ = ["IterationTrainer", "check_fields", "header_fields", "ring_write", "uniform_legal"]


def check_fields(config: Any, learner: str) -> None:
    """Check a network learner's configuration against the one declaration of its options
    (:mod:`tttlab.hyperparameters`): every field that is an option, and the budget."""
    if isinstance(config.episodes, bool) or not isinstance(config.episodes, int):
        raise ConfigError("episodes must be a whole number")
    if config.episodes < 1:
        raise ConfigError(f"episodes must be at least 1, got {config.episodes}")
    for entry in for_learner(learner):
        value = getattr(config, entry.name, None)
        if value is not None and not isinstance(value, Schedule):
            entry.check(value)


def header_fields(config_class: Any, header: dict[str, Any]) -> dict[str, Any]:
    """A configuration's fields from an agent file's ``hyperparameters`` (a resumed run)."""
    known = {f.name for f in dataclasses.fields(config_class)} - {"geometry", "episodes", "seed"}
    options = {k.replace("-", "_"): v for k, v in header.items()}
    if not set(options) <= known:
        raise ConfigError(f"unknown hyperparameters {sorted(set(options) - known)}")
    for name in ("epsilon", "alpha"):
        if name in options and name in known:
            if not isinstance(options[name], dict):
                raise ConfigError(f"{name} is not a schedule")
            options[name] = Schedule(**options[name])
    if "hidden" in options:
        options["hidden"] = tuple(options["hidden"])
    return options


def uniform_legal(key: jax.Array, state: State) -> jax.Array:
    """A uniformly random legal move in each game of a batch."""
    noise = jax.random.uniform(key, state.legal_action_mask.shape)
    return jnp.argmax(jnp.where(state.legal_action_mask, noise, -1.0), axis=-1)


class IterationTrainer:
    """Runs jitted iterations of ``config.games_per_iteration`` games each.

    A subclass sets ``self.config`` (with ``games_per_iteration`` and ``iterations``) and
    ``self.carry`` (an equinox module of arrays), then calls ``super().__init__()``, and
    defines ``_iterate(carry, iteration) -> (carry, metrics)``.
    """

    config: Any
    carry: Any

    def __init__(self) -> None:
        self.iteration = 0
        self._step = eqx.filter_jit(self._iterate)

    def _iterate(self, carry: Any, iteration: jax.Array) -> tuple[Any, dict[str, jax.Array]]:
        raise NotImplementedError

    @property
    def done(self) -> int:
        """Self-play games played so far."""
        return int(self.iteration * self.config.games_per_iteration)

    @property
    def remaining(self) -> int:
        return int((self.config.iterations - self.iteration) * self.config.games_per_iteration)

    def run(self, iterations: int = 1) -> dict[str, float]:
        """Run up to ``iterations`` iterations (never past the budget); the last metrics."""
        metrics: dict[str, float] = {}
        for _ in range(min(iterations, self.config.iterations - self.iteration)):
            self.carry, found = self._step(self.carry, jnp.int32(self.iteration))
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


def ring_write(
    old: tuple[jax.Array, ...], new: tuple[jax.Array, ...], cursor: jax.Array
) -> list[jax.Array]:
    """Write ``new`` into the replay arrays ``old`` at ``cursor`` (the batch never wraps:
    capacities are whole multiples of it)."""
    return [
        jax.lax.dynamic_update_slice_in_dim(a, b, cursor, axis=0)
        for a, b in zip(old, new, strict=True)
    ]
