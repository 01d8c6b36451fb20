"""AlphaZero self-play on the batched environment, with search by ``mctx``.

One *iteration* plays ``batch`` games at once from the empty board to the end, choosing
every move by Gumbel MuZero's policy (``mctx.gumbel_muzero_policy``, which improves the
policy with few simulations and needs no exploration noise), then writes every position
with its search policy and the final result into a replay of recent positions, then takes
``updates`` gradient steps (adam, via optax) on minibatches drawn from the replay, each
position under a random symmetry of the board. The whole iteration is one jitted
function, so it runs unchanged on a CPU or a GPU.

The loss is AlphaZero's: cross-entropy between the search policy and the network's
(illegal moves masked), plus the squared error between the value head and the game's
result from the mover's side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import mctx
import numpy as np
import optax  # type: ignore[import-untyped]

from tttlab.agents.network import Architecture
from tttlab.game import Geometry
from tttlab.hyperparameters import BY_NAME, check_options
from tttlab.neural.loop import (
    IterationBudget,
    IterationTrainer,
    RandomOpening,
    Replay,
    check_fields,
    mover_reward,
    negamax_backward,
    uniform_legal,
)
from tttlab.neural.network import Network
from tttlab.vector import State

__all__ = ["AlphaZeroConfig", "AlphaZeroTrainer", "augment", "mover_results"]

LEARNER = "alphazero"


@dataclass(frozen=True)
class AlphaZeroConfig(RandomOpening, IterationBudget):
    """Everything that fixes a run (with the seed, it fixes the result on a CPU). The
    defaults, ranges and help of the options are declared in :mod:`tttlab.hyperparameters`.

    Attributes:
        geometry: the board.
        episodes: self-play games in all (rounded up to whole iterations).
        seed: the seed of every random choice.
        batch: games played at once per iteration.
        simulations: search simulations per move in self-play.
        hidden: widths of the network's hidden layers.
        learning_rate: adam's step size.
        updates: gradient steps per iteration.
        minibatch: positions per gradient step.
        replay: iterations of positions the replay keeps.
        augment: train on a random symmetry of each position.
        opening: each game first plays a uniformly random number (0 to ``opening``) of
            uniformly random moves, which are not trained on; ``None`` means cells − 2.
            The exact judge asks for the right move in every reachable position, and pure
            self-play soon visits only its own few lines.
    """

    geometry: Geometry
    episodes: int
    seed: int = 0
    batch: int = BY_NAME["batch"].default(LEARNER)
    simulations: int = BY_NAME["simulations"].default(LEARNER)
    hidden: tuple[int, ...] = BY_NAME["hidden"].default(LEARNER)
    learning_rate: float = BY_NAME["learning_rate"].default(LEARNER)
    updates: int = BY_NAME["updates"].default(LEARNER)
    minibatch: int = BY_NAME["minibatch"].default(LEARNER)
    replay: int = BY_NAME["replay"].default(LEARNER)
    augment: bool = True
    opening: int | None = BY_NAME["opening"].default(LEARNER)

    def __post_init__(self) -> None:
        check_fields(self, LEARNER)
        self.check_opening()

    @property
    def architecture(self) -> Architecture:
        return Architecture(self.geometry.cells, self.hidden, "policy-value")

    def header(self) -> dict[str, Any]:
        """The hyperparameters, as agent files and ``--json`` show them."""
        return {
            "batch": self.games_per_iteration,
            "simulations": self.simulations,
            "hidden": list(self.hidden),
            "learning_rate": self.learning_rate,
            "updates": self.updates,
            "minibatch": self.minibatch,
            "replay": self.replay,
            "augment": self.augment,
            "opening": self.random_plies,
        }

    @classmethod
    def from_options(
        cls, geometry: Geometry, episodes: int, seed: int, options: dict[str, Any]
    ) -> AlphaZeroConfig:
        """The configuration ``ttt train alphazero`` builds (options checked by
        :func:`tttlab.hyperparameters.check_options`)."""
        return cls(
            geometry=geometry, episodes=episodes, seed=seed, **check_options(LEARNER, options)
        )


_MIN_LOGIT = float(np.finfo(np.float32).min)


def mover_results(reward: jax.Array, terminated: jax.Array) -> jax.Array:
    """The value target of every ply: the game's result from the side that moved there.

    ``reward[t]`` is what the mover of ply ``t`` got (+1 for a win, −1 for an illegal move,
    else 0) and ``terminated[t]`` whether the game was over after it, both (plies, games).
    Backwards: z_t = r_t at the game's last move, else r_t − z_{t+1} (the next position
    belongs to the other player); plies after the end get 0.
    """
    return negamax_backward(reward, terminated)


def augment(
    observation: jax.Array, policy: jax.Array, perm: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """Positions (N, cells, 2) and their search policies (N, cells) under the board
    symmetries ``perm`` (N, cells): both read cell ``perm[i]`` into cell ``i``, so a move
    stays on the cell its stones moved to."""
    return (
        jnp.take_along_axis(observation, perm[:, :, None], axis=1),
        jnp.take_along_axis(policy, perm, axis=1),
    )


class _Carry(eqx.Module):
    """What one iteration reads and writes: the network, the optimiser, the replay of
    (observation (cells, 2) bool, search policy (cells,), result, weight: 1 for a real
    position, 0 for padding or an opening move)."""

    network: Network
    opt_state: Any
    key: jax.Array
    replay: Replay


class AlphaZeroTrainer(IterationTrainer):
    """Runs iterations of self-play and learning; checkpoints are plain arrays."""

    algorithm = LEARNER

    def __init__(self, config: AlphaZeroConfig) -> None:
        key, network = self._prepare(config, optax.adam(config.learning_rate))
        n, cells = self.capacity, self.cells
        self.carry = _Carry(
            network=network,
            opt_state=self.optimizer.init(eqx.filter(network, eqx.is_array)),
            key=key,
            replay=Replay.empty(
                (
                    jnp.zeros((n, cells, 2), jnp.bool_),
                    jnp.zeros((n, cells), jnp.float32),
                    jnp.zeros(n, jnp.float32),
                    jnp.zeros(n, jnp.float32),
                )
            ),
        )
        super().__init__()

    def _playing(self) -> Network:
        network: Network = self.carry.network
        return network

    # -- one iteration ------------------------------------------------------------------
    def _recurrent(
        self, network: Network, key: jax.Array, action: jax.Array, state: State
    ) -> tuple[mctx.RecurrentFnOutput, State]:
        del key
        mover = state.current_player
        state = jax.vmap(self.env.step)(state, action)
        logits, value = jax.vmap(network)(state.observation)
        logits = jnp.where(state.legal_action_mask, logits, _MIN_LOGIT)
        reward = mover_reward(state, mover)
        value = jnp.where(state.terminated, 0.0, value)
        discount = jnp.where(state.terminated, 0.0, -1.0)
        return mctx.RecurrentFnOutput(
            reward=reward, discount=discount, prior_logits=logits, value=value
        ), state

    def _selfplay(self, network: Network, key: jax.Array) -> tuple[jax.Array, ...]:
        batch = self.config.games_per_iteration
        key, k_open = jax.random.split(key)
        state = jax.vmap(self.env.init)(jax.random.split(key, batch))
        opening = jax.random.randint(k_open, (batch,), 0, self.config.random_plies + 1)

        def move(state: State, key: jax.Array) -> tuple[State, tuple[jax.Array, ...]]:
            key, k_random = jax.random.split(key)
            logits, value = jax.vmap(network)(state.observation)
            root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
            out = mctx.gumbel_muzero_policy(
                params=network,
                rng_key=key,
                root=root,
                recurrent_fn=self._recurrent,
                num_simulations=self.config.simulations,
                invalid_actions=~state.legal_action_mask,
                qtransform=mctx.qtransform_completed_by_mix_value,
                gumbel_scale=1.0,
            )
            opened = state._step_count >= opening
            action = jnp.where(opened, out.action, uniform_legal(k_random, state))
            after = jax.vmap(self.env.step)(state, action)
            mover = state.current_player
            reward = mover_reward(after, mover)
            record = (
                state.observation.reshape(batch, self.cells, 2),
                out.action_weights,
                reward,
                after.terminated,
                ~state.terminated & opened,
            )
            return after, record

        _, (obs, policy, reward, terminated, valid) = jax.lax.scan(
            move, state, jax.random.split(key, self.cells)
        )

        return obs, policy, mover_results(reward, terminated), valid.astype(jnp.float32)

    def _loss(
        self, network: Network, obs: jax.Array, policy: jax.Array, value: jax.Array, w: jax.Array
    ) -> tuple[jax.Array, tuple[jax.Array, jax.Array]]:
        logits, v = jax.vmap(network)(obs)
        legal = ~(obs[..., 0] | obs[..., 1])
        logp = jax.nn.log_softmax(jnp.where(legal, logits, -1e9))
        policy_loss = -jnp.sum(policy * jnp.where(legal, logp, 0.0), axis=-1)
        value_loss = (v - value) ** 2
        total = jnp.maximum(w.sum(), 1.0)
        p, vl = (policy_loss * w).sum() / total, (value_loss * w).sum() / total
        return p + vl, (p, vl)

    def _iterate(self, carry: _Carry, iteration: jax.Array) -> tuple[_Carry, dict[str, jax.Array]]:
        del iteration
        cfg = self.config
        key, play_key, train_key = jax.random.split(carry.key, 3)
        obs, policy, value, valid = self._selfplay(carry.network, play_key)
        n = self.per_iteration
        flat = (
            obs.reshape(n, self.cells, 2),
            policy.reshape(n, self.cells),
            value.reshape(n),
            valid.reshape(n),
        )
        replay = carry.replay.write(flat)

        def update(
            state: tuple[Network, Any], key: jax.Array
        ) -> tuple[tuple[Network, Any], jax.Array]:
            network, opt_state = state
            k_pick, k_sym = jax.random.split(key)
            o, p, v, w = replay.pick(k_pick, cfg.minibatch)
            if cfg.augment:
                perm = self.perms[jax.random.randint(k_sym, (cfg.minibatch,), 0, len(self.perms))]
                o, p = augment(o, p, perm)
            (loss, parts), grads = eqx.filter_value_and_grad(self._loss, has_aux=True)(
                network, o, p, v, w
            )
            updates, opt_state = self.optimizer.update(
                grads, opt_state, eqx.filter(network, eqx.is_array)
            )
            network = eqx.apply_updates(network, updates)
            return (network, opt_state), jnp.stack([loss, *parts])

        (network, opt_state), losses = jax.lax.scan(
            update, (carry.network, carry.opt_state), jax.random.split(train_key, cfg.updates)
        )
        last = losses[-1] if cfg.updates else jnp.zeros(3)
        new = _Carry(network=network, opt_state=opt_state, key=key, replay=replay)
        return new, {"loss": last[0], "policy_loss": last[1], "value_loss": last[2]}
