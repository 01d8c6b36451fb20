"""AlphaZero self-play on the batched environment, with search by ``mctx``.

One *iteration* lets ``batch`` game slots play one move per cell of the board each,
choosing every move by Gumbel MuZero's policy (``mctx.gumbel_muzero_policy``, which improves
the policy with few simulations and needs no exploration noise); a game that ends is replaced
at once by a fresh one after its random opening, which is never searched. It then writes
every searched position of the games that ended, with its search policy and the final
result, into a replay of recent positions (real ones only), then takes ``updates`` gradient
steps (adam, via optax) on minibatches drawn from the replay, each position under a random
symmetry of the board. The whole iteration is one jitted function, so it runs unchanged on a
CPU or a GPU.

The agent it gives is not the network of the last step but a moving average of the network
(``average``: the share of the average kept at each iteration, less in the first hundreds),
and it plays the outputs averaged over the board's symmetries (``symmetrize``): the exact
judge asks for the right move in every reachable position, and a single step's network, or
a single orientation of the board, gets a few rare ones wrong that the averages get right
(docs/guides/networks.md).

The loss is AlphaZero's: cross-entropy between the search policy and the network's
(illegal moves masked), plus the squared error between the value head and the game's
result from the mover's side.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import mctx
import numpy as np
import optax  # type: ignore[import-untyped]

from tttlab.agents.forward import Architecture
from tttlab.agents.gumbel import CONSIDERED
from tttlab.neural.config import NetworkConfig
from tttlab.neural.loop import (
    IterationTrainer,
    Replay,
    mover_reward,
    negamax_backward,
)
from tttlab.neural.network import Network
from tttlab.vector import Env, State

__all__ = [
    "AlphaZeroConfig",
    "AlphaZeroTrainer",
    "augment",
    "gumbel_policy",
    "search_step",
]

LEARNER = "alphazero"


class AlphaZeroConfig(NetworkConfig):
    """An AlphaZero run: the board, the self-play game slots in all (each plays one
    searched move per cell, a new game whenever its game ends), the seed, and each option
    that :mod:`tttlab.hyperparameters` declares for alphazero, by name: ``batch`` (game
    slots at once per iteration), ``simulations`` (per self-play move), ``hidden``,
    ``learning_rate``, ``updates``, ``minibatch``, ``replay`` (iterations' worth of real
    positions kept), ``augment`` and ``opening`` (each game first plays up to ``opening``
    uniformly random moves, not trained on: the exact judge asks for the right move in
    every reachable position, and pure self-play soon visits only its own few lines)."""

    learner = LEARNER

    @property
    def architecture(self) -> Architecture:
        return self.shaped("policy-value")


_MIN_LOGIT = float(np.finfo(np.float32).min)


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


def search_step(
    env: Env,
    network: Callable[[jax.Array], tuple[jax.Array, jax.Array]],
    action: jax.Array,
    state: State,
) -> tuple[mctx.RecurrentFnOutput, State]:
    """One step of the search's model (mctx's ``recurrent_fn``): play ``action`` in each
    state; the reward is the mover's, the value the network's for the next mover (0 once
    the game is over), and the discount −1 between the two players (0 at the end)."""
    mover = state.current_player
    state = jax.vmap(env.step)(state, action)
    logits, value = jax.vmap(network)(state.observation)
    logits = jnp.where(state.legal_action_mask, logits, _MIN_LOGIT)
    reward = mover_reward(state, mover)
    value = jnp.where(state.terminated, 0.0, value)
    discount = jnp.where(state.terminated, 0.0, -1.0)
    return mctx.RecurrentFnOutput(
        reward=reward, discount=discount, prior_logits=logits, value=value
    ), state


def gumbel_policy(
    env: Env,
    network: Callable[[jax.Array], tuple[jax.Array, jax.Array]],
    state: State,
    key: jax.Array,
    simulations: int,
    gumbel_scale: float = 1.0,
    rescale: bool = True,
    considered: int = CONSIDERED,
) -> mctx.PolicyOutput[Any]:
    """Gumbel MuZero's search (``mctx.gumbel_muzero_policy``) from a batch of states:
    with ``gumbel_scale`` 1 as self-play searches, with 0 as ``az.npz:N`` plays (the numpy
    search of :mod:`tttlab.agents.gumbel` is this one, checked move for move); ``rescale``
    is the Q transform's ``rescale_values``, ``considered`` its
    ``max_num_considered_actions``."""
    logits, value = jax.vmap(network)(state.observation)
    root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
    return mctx.gumbel_muzero_policy(
        params=network,
        rng_key=key,
        root=root,
        recurrent_fn=lambda net, _key, action, s: search_step(env, net, action, s),
        num_simulations=simulations,
        invalid_actions=~state.legal_action_mask,
        qtransform=functools.partial(
            mctx.qtransform_completed_by_mix_value, rescale_values=rescale
        ),
        gumbel_scale=gumbel_scale,
        max_num_considered_actions=considered,
    )


def _rows(which: jax.Array, a: jax.Array, b: jax.Array) -> jax.Array:
    """``a`` in the games ``which`` marks, else ``b`` (over a batch's leading axis)."""
    return jnp.where(which.reshape(which.shape + (1,) * (a.ndim - 1)), a, b)


class _Carry(eqx.Module):
    """What one iteration reads and writes: the network, the optimiser, the replay of
    (observation (cells, 2) bool, search policy (cells,), result, weight: 1 for every row
    written, 0 only in the rows of the empty replay, which ``pick_recent`` reaches before
    the first iteration's rows exist)."""

    network: Network
    opt_state: Any
    key: jax.Array
    replay: Replay
    #: The network that plays (``average`` > 0): after each iteration it keeps that
    #: share of itself and takes the rest from ``network``. None: ``network`` plays.
    average: Network | None = None


class AlphaZeroTrainer(IterationTrainer):
    """Runs iterations of self-play and learning; checkpoints are plain arrays."""

    algorithm = LEARNER

    def __init__(self, config: AlphaZeroConfig) -> None:
        key, network = self._prepare(config, optax.adam(config.learning_rate))
        # The replay holds ``replay`` iterations' worth of positions, all of them real
        # (``Replay.write_kept``), and room for one more iteration's rows being written.
        self.capacity = self.per_iteration * (config.replay + 1)
        self.lines = jnp.asarray(np.array(config.geometry.lines, dtype=np.int32))
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
            average=network if config.average else None,
        )
        super().__init__()

    def _playing(self) -> Network:
        network: Network = self.carry.network if self.carry.average is None else self.carry.average
        return network

    # -- one iteration ------------------------------------------------------------------
    def _fresh(self, key: jax.Array, batch: int) -> State:
        """New games, each after its random opening: a uniformly random number (0 to
        ``opening``) of uniformly random moves, none of which ends the game (an opening
        stops before a move that would). Never searched, never trained on.

        All at once, without stepping: the moves are a random order of the cells, X
        taking the even places in it and O the odd ones; a line is complete when its
        last cell comes, if all its cells fell to one side, and the opening stops before
        the first such move."""
        k_order, k_length = jax.random.split(key)
        u = jax.random.uniform(k_order, (batch, self.cells))
        rank = (u[:, None, :] < u[:, :, None]).sum(axis=-1)  # when each cell is played
        at = rank[:, self.lines]  # (batch, lines, k)
        one_side = jnp.all(at % 2 == at[..., :1] % 2, axis=-1)
        first_win = jnp.min(jnp.where(one_side, at.max(axis=-1), self.cells), axis=-1)
        length = jax.random.randint(k_length, (batch,), 0, self.config.random_plies + 1)
        length = jnp.minimum(length, jnp.minimum(first_win, self.cells - 1))
        board = jnp.where(rank < length[:, None], 1 + rank % 2, 0)
        return self.env.from_boards(board)

    def _selfplay(self, network: Network, key: jax.Array) -> tuple[jax.Array, ...]:
        """``batch`` game slots play ``cells`` searched moves each; a game that ends is
        replaced at once by a fresh one (after its random opening), so every search is of
        a position that is trained on, except in the games still going at the end, which
        have no result yet and are left out (``kept`` is False for them)."""
        batch = self.config.games_per_iteration
        key, k_fresh = jax.random.split(key)

        def move(state: State, key: jax.Array) -> tuple[State, tuple[jax.Array, ...]]:
            k_search, k_fresh = jax.random.split(key)
            out = gumbel_policy(self.env, network, state, k_search, self.config.simulations)
            after = jax.vmap(self.env.step)(state, out.action)
            record = (
                state.observation.reshape(batch, self.cells, 2),
                out.action_weights,
                mover_reward(after, state.current_player),
                after.terminated,
            )
            fresh = self._fresh(k_fresh, batch)
            state = jax.tree_util.tree_map(lambda a, b: _rows(after.terminated, a, b), fresh, after)
            return state, record

        _, (obs, policy, reward, terminated) = jax.lax.scan(
            move, self._fresh(k_fresh, batch), jax.random.split(key, self.cells)
        )
        # A move is kept when its game ends within the iteration: some game end at or after it.
        kept = jnp.flip(jnp.cumsum(jnp.flip(terminated, 0), axis=0), 0) > 0
        # The value target of every ply: the game's result for the side that moved there
        # (r at the game's last move, else r minus the next ply's; 0 after the end).
        return obs, policy, negamax_backward(reward, terminated), kept

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
        cfg = self.config
        key, play_key, train_key = jax.random.split(carry.key, 3)
        obs, policy, value, kept = self._selfplay(carry.network, play_key)
        n = self.per_iteration
        flat = (
            obs.reshape(n, self.cells, 2),
            policy.reshape(n, self.cells),
            value.reshape(n),
            kept.reshape(n).astype(jnp.float32),
        )
        replay = carry.replay.write_kept(flat, kept.reshape(n))

        def update(
            state: tuple[Network, Any], key: jax.Array
        ) -> tuple[tuple[Network, Any], jax.Array]:
            network, opt_state = state
            k_pick, k_sym = jax.random.split(key)
            o, p, v, w = replay.pick_recent(k_pick, cfg.minibatch)
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
        average = carry.average
        if average is not None:
            # Early on the network changes fast and the average follows it closely:
            # it keeps at most (1 + t) / (10 + t) of itself at iteration t (as
            # TensorFlow's ExponentialMovingAverage with num_updates).
            keep = jnp.minimum(cfg.average, (1.0 + iteration) / (10.0 + iteration))
            average = jax.tree_util.tree_map(
                lambda a, b: keep * a + (1.0 - keep) * b, average, network
            )
        new = _Carry(network=network, opt_state=opt_state, key=key, replay=replay, average=average)
        return new, {"loss": last[0], "policy_loss": last[1], "value_loss": last[2]}
