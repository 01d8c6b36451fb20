"""Proximal policy optimisation (PPO) by self-play on the batched environment.

One *iteration* plays ``batch`` games at once from the empty board to the end, every move
sampled from the network's policy over the legal moves (illegal moves get no probability,
so they are never sampled), after a random opening as AlphaZero's (those moves are not
trained on). Then ``epochs`` passes over the iteration's positions in minibatches, each an
adam step on PPO's clipped objective:

    L = −min(ρ·A, clip(ρ, 1 − ε, 1 + ε)·A) + c_v·(V − R)² − c_H·H(π)

with ρ = π(a | s) / π_old(a | s) (masked log-probabilities), the advantages A from
generalised advantage estimation (GAE) normalised over the iteration, R = A + V_old the
returns, and H the entropy of the masked policy.

The game has two players who move in turn, so everything is from the mover's side and the
next position belongs to the opponent (negamax): the temporal difference of a move is
δ_t = r_t − γ·V(s_{t+1}) (no bootstrap when the move ends the game), and the advantage
A_t = δ_t − γλ·A_{t+1}. One network is the actor and the critic: AlphaZero's
policy-and-value network over the mover's observation.

From the PPO paper's defaults (Schulman et al. 2017; the Atari and MuJoCo settings): the
clip ε = 0.2, λ = 0.95, the value coefficient 0.5, the entropy bonus 0.01, adam at
3·10⁻⁴ with the gradient's norm clipped at 0.5, 4 epochs, and (Atari) the step annealed
linearly to 0 over the run. Measured here (README): the batch of games, the minibatch, the
opening and the budget.
"""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import optax  # type: ignore[import-untyped]

from tttlab.agents.forward import Architecture
from tttlab.neural.config import NetworkConfig
from tttlab.neural.loop import (
    IterationTrainer,
    mover_reward,
    negamax_backward,
    uniform_legal,
)
from tttlab.neural.network import Network
from tttlab.vector import State

__all__ = [
    "PPOConfig",
    "PPOTrainer",
    "Rollout",
    "adam_step",
    "advantages",
    "masked_log_policy",
    "ppo_loss",
]

LEARNER = "ppo"
#: The gradient's global norm is clipped here (the PPO paper's implementations).
MAX_GRAD_NORM = 0.5
_NEG = -1e9


class PPOConfig(NetworkConfig):
    """A PPO run: the board, the self-play games in all, the seed, and each option that
    :mod:`tttlab.hyperparameters` declares for ppo, by name: ``batch``, ``hidden``,
    ``learning_rate``, ``epochs`` (passes over each iteration's positions), ``minibatch``,
    ``clip``, ``entropy``, ``value_coef``, ``gae_lambda``, ``anneal`` and ``opening``.
    On-policy: only the iteration's own positions are trained on."""

    learner = LEARNER

    @property
    def architecture(self) -> Architecture:
        return self.shaped("policy-value")


class Rollout(eqx.Module):
    """An iteration's positions, flattened: the mover's observation (cells, 2) bool, the
    legal moves, the move played, its log-probability when played, the advantage, the
    return and the weight (1 for a move of the policy, 0 for an opening move or padding)."""

    obs: jax.Array
    legal: jax.Array
    action: jax.Array
    logp: jax.Array
    advantage: jax.Array
    ret: jax.Array
    weight: jax.Array


def masked_log_policy(logits: jax.Array, legal: jax.Array) -> jax.Array:
    """Log-probabilities of the policy over the legal moves (illegal ones: −1e9, so their
    probability is exactly 0)."""
    return jax.nn.log_softmax(jnp.where(legal, logits, _NEG), axis=-1)


def advantages(
    reward: jax.Array, value: jax.Array, done: jax.Array, lam: float, gamma: float = 1.0
) -> tuple[jax.Array, jax.Array]:
    """GAE over plies (time first: ``[plies, games]``), negamax: each ply's values are its
    mover's, and the next ply is the opponent's. Returns (advantages, returns)."""
    nxt = jnp.concatenate([value[1:], jnp.zeros_like(value[:1])], axis=0)
    delta = reward - gamma * jnp.where(done, 0.0, nxt) - value
    adv = negamax_backward(delta, done, gamma * lam)
    return adv, adv + value


def ppo_loss(
    network: Network,
    batch: Rollout,
    clip: float,
    value_coef: float,
    entropy: float,
) -> tuple[jax.Array, tuple[jax.Array, jax.Array, jax.Array]]:
    """PPO's loss on a minibatch (weights 0 drop a row): (total, (policy, value, entropy))."""
    logits, v = jax.vmap(network)(batch.obs)
    logp_all = masked_log_policy(logits, batch.legal)
    logp = jnp.take_along_axis(logp_all, batch.action[:, None], axis=1)[:, 0]
    ratio = jnp.exp(logp - batch.logp)
    clipped = jnp.clip(ratio, 1.0 - clip, 1.0 + clip)
    policy_loss = -jnp.minimum(ratio * batch.advantage, clipped * batch.advantage)
    value_loss = (v - batch.ret) ** 2
    probs = jnp.exp(logp_all)
    ent = -jnp.sum(jnp.where(batch.legal, probs * logp_all, 0.0), axis=-1)
    total = jnp.maximum(batch.weight.sum(), 1.0)
    p = (policy_loss * batch.weight).sum() / total
    vl = (value_loss * batch.weight).sum() / total
    h = (ent * batch.weight).sum() / total
    return p + value_coef * vl - entropy * h, (p, vl, h)


def adam_step(config: PPOConfig) -> float | optax.Schedule:
    """Adam's step: ``learning_rate`` throughout, or with ``anneal`` going linearly from it
    to 0 at the run's last gradient step (the PPO paper's Atari setting). Annealed, the
    policy stops moving as the budget ends (3×3: 10 of 10 seeds perfect at 262,144 games,
    against 3 of 5 with a constant step; README)."""
    if not config.anneal:
        return float(config.learning_rate)
    positions = config.games_per_iteration * config.geometry.cells
    steps = config.iterations * config.epochs * (positions // min(config.minibatch, positions))
    return optax.linear_schedule(config.learning_rate, 0.0, steps)


class _Carry(eqx.Module):
    network: Network
    opt_state: Any
    key: jax.Array


class PPOTrainer(IterationTrainer):
    """Runs iterations of self-play and PPO updates; checkpoints are plain arrays."""

    algorithm = LEARNER

    def __init__(self, config: PPOConfig) -> None:
        optimizer = optax.chain(
            optax.clip_by_global_norm(MAX_GRAD_NORM), optax.adam(adam_step(config))
        )
        key, network = self._prepare(config, optimizer)
        self.carry = _Carry(
            network=network,
            opt_state=self.optimizer.init(eqx.filter(network, eqx.is_array)),
            key=key,
        )
        super().__init__()

    def _playing(self) -> Network:
        network: Network = self.carry.network
        return network

    def selfplay(self, network: Network, key: jax.Array) -> Rollout:
        """``batch`` games of self-play, the moves sampled from the masked policy (after
        the random opening), with their advantages and returns."""
        batch = self.config.games_per_iteration
        key, k_open = jax.random.split(key)
        state = jax.vmap(self.env.init)(jax.random.split(key, batch))
        opening = jax.random.randint(k_open, (batch,), 0, self.config.random_plies + 1)

        def move(state: State, key: jax.Array) -> tuple[State, tuple[jax.Array, ...]]:
            k_policy, k_random = jax.random.split(key)
            obs = state.observation.reshape(batch, self.cells, 2)
            logits, value = jax.vmap(network)(obs)
            legal = state.legal_action_mask
            logp_all = masked_log_policy(logits, legal)
            sampled = jax.random.categorical(k_policy, logp_all, axis=-1)
            opened = state._step_count >= opening
            action = jnp.where(opened, sampled, uniform_legal(k_random, state))
            logp = jnp.take_along_axis(logp_all, action[:, None], axis=1)[:, 0]
            after = jax.vmap(self.env.step)(state, action)
            mover = state.current_player
            reward = mover_reward(after, mover)
            live = ~state.terminated
            record = (
                obs,
                legal,
                action,
                logp,
                jnp.where(live, value, 0.0),
                jnp.where(live, reward, 0.0),
                after.terminated | ~live,
                live & opened,
            )
            return after, record

        _, (obs, legal, action, logp, value, reward, done, valid) = jax.lax.scan(
            move, state, jax.random.split(key, self.cells)
        )
        adv, ret = advantages(reward, value, done, self.config.gae_lambda)
        n = self.per_iteration
        weight = valid.astype(jnp.float32).reshape(n)
        adv = adv.reshape(n)
        count = jnp.maximum(weight.sum(), 1.0)
        mean = (adv * weight).sum() / count
        std = jnp.sqrt((((adv - mean) ** 2) * weight).sum() / count)
        return Rollout(
            obs=obs.reshape(n, self.cells, 2),
            legal=legal.reshape(n, self.cells),
            action=action.reshape(n),
            logp=logp.reshape(n),
            advantage=(adv - mean) / (std + 1e-8),
            ret=ret.reshape(n),
            weight=weight,
        )

    def update(
        self, network: Network, opt_state: Any, batch: Rollout
    ) -> tuple[Network, Any, jax.Array]:
        """One adam step on PPO's loss over ``batch``; (network, optimiser state, loss)."""
        cfg = self.config
        (loss, _), grads = eqx.filter_value_and_grad(ppo_loss, has_aux=True)(
            network, batch, cfg.clip, cfg.value_coef, cfg.entropy
        )
        updates, opt_state = self.optimizer.update(
            grads, opt_state, eqx.filter(network, eqx.is_array)
        )
        return eqx.apply_updates(network, updates), opt_state, loss

    def _iterate(self, carry: _Carry, iteration: jax.Array) -> tuple[_Carry, dict[str, jax.Array]]:
        del iteration
        cfg = self.config
        key, play_key, train_key = jax.random.split(carry.key, 3)
        rollout = self.selfplay(carry.network, play_key)
        n = self.per_iteration
        size = min(cfg.minibatch, n)
        steps = n // size

        def epoch(
            state: tuple[Network, Any], key: jax.Array
        ) -> tuple[tuple[Network, Any], jax.Array]:
            order = jax.random.permutation(key, n)[: steps * size].reshape(steps, size)

            def step(
                state: tuple[Network, Any], rows: jax.Array
            ) -> tuple[tuple[Network, Any], jax.Array]:
                network, opt_state = state
                batch = jax.tree_util.tree_map(lambda a: a[rows], rollout)
                network, opt_state, loss = self.update(network, opt_state, batch)
                return (network, opt_state), loss

            return jax.lax.scan(step, state, order)

        (network, opt_state), losses = jax.lax.scan(
            epoch, (carry.network, carry.opt_state), jax.random.split(train_key, cfg.epochs)
        )
        _, (p, vl, h) = ppo_loss(network, rollout, cfg.clip, cfg.value_coef, cfg.entropy)
        new = _Carry(network=network, opt_state=opt_state, key=key)
        return new, {"loss": losses[-1, -1], "policy_loss": p, "value_loss": vl, "entropy": h}
