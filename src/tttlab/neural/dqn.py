"""Deep Q-learning (DQN) by self-play on the batched environment.

The seeds' Q-learning with a network in place of the table. One *iteration* plays
``batch`` games at once from the empty board to the end, every move ε-greedy on the
network's action values (illegal moves masked: never chosen, never bootstrapped from),
writes every transition into a replay of recent ones, then takes ``updates`` adam steps
on minibatches drawn from the replay, each under a random symmetry of the board. The
target of a transition (s, a, r, s′) is

    y = r                                      when s′ ends the game,
    y = r − γ · Q_target(s′, argmax_a′ Q(s′, a′))   otherwise (Double DQN),

with values from the mover's side: the next position belongs to the other player, so its
best value counts against the mover (negamax; X maximises and O minimises, as in the
seed). Without ``double`` the bootstrap is max_a′ Q_target(s′, a′). The target network
is a copy of the online one, refreshed every ``target_every`` gradient steps.

With ``n_step`` n > 1 a transition looks n plies ahead before it bootstraps (Rainbow's
multi-step targets, in negamax): r is the plies' rewards r_t − γ r_{t+1} + γ² r_{t+2} …
up to the game's end, s′ the position n plies on, and the bootstrap counts (−γ)ⁿ times,
for the side to move there (n odd: the opponent).

``perspective`` picks the representation: ``mover`` (default) shows the network the board
from the mover's side and reads its values as the mover's, so one function serves both
seats; ``x`` shows it X's and O's stones and reads X's values, which X maximises and O
minimises, exactly as the seed's table. The README compares them.
"""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax  # type: ignore[import-untyped]

from tttlab.agents.forward import Architecture
from tttlab.neural.config import NetworkConfig
from tttlab.neural.loop import (
    IterationTrainer,
    Replay,
    mover_reward,
    uniform_legal,
)
from tttlab.neural.network import Network
from tttlab.schedules import Schedule
from tttlab.vector import State

__all__ = ["DQNConfig", "DQNTrainer", "looking_ahead", "schedule_value"]

LEARNER = "dqn"


def schedule_value(schedule: Schedule, t: jax.Array, total: int) -> jax.Array:
    """``schedule`` at step ``t`` of ``total``, in jnp (the same values as the tables')."""
    kind, start, end = schedule.row()
    if kind == 0 or total <= 1:
        return jnp.asarray(start, jnp.float32)
    frac = jnp.minimum(t.astype(jnp.float32) / (total - 1), 1.0)
    if kind == 1:
        return start + (end - start) * frac
    return start * (end / start) ** frac


class DQNConfig(NetworkConfig):
    """A DQN run: the board, the self-play games in all, the seed, and each option that
    :mod:`tttlab.hyperparameters` declares for dqn, by name: ``epsilon`` (a schedule over
    the games), ``learning_rate`` (adam's step), ``gamma``, ``batch`` (games at once per
    iteration), ``hidden``, ``updates`` (gradient steps per iteration), ``minibatch``,
    ``replay`` (iterations of transitions kept), ``target_every`` (gradient steps between
    copies to the target), ``double``, ``perspective``, ``n_step`` (see the module's doc)
    and ``augment``."""

    learner = LEARNER

    @property
    def architecture(self) -> Architecture:
        return self.shaped("q", self.perspective)


class Batch(eqx.Module):
    """Transitions (s, a, r, s′): positions from the mover's side, the reward for the
    mover (over ``n_step`` plies: see the module's doc), whether the game ends before s′
    needs a value, and a weight (0 for padding after a game's end)."""

    obs: jax.Array  # (n, cells, 2) bool
    action: jax.Array  # (n,) int32
    reward: jax.Array  # (n,) float32
    next_obs: jax.Array  # (n, cells, 2) bool
    done: jax.Array  # (n,) bool
    weight: jax.Array  # (n,) float32


def looking_ahead(plies: Batch, n: int, gamma: float) -> Batch:
    """One-ply transitions of whole games (time first: ``[plies, games, ...]``, as self-play
    records them, every game to its end) as ``n``-ply ones: the reward r_t − γ r_{t+1} + …
    over n plies (0 after the end), the position n plies on, and whether the game ended
    within them. With n = 1 the same transitions."""
    if n == 1:
        return plies
    sign = (-gamma) ** np.arange(n, dtype=np.float32)

    def on(a: jax.Array, j: int, fill: Any) -> jax.Array:
        """``a`` j plies on (``fill`` past the last ply)."""
        pad = jnp.full((j, *a.shape[1:]), fill, a.dtype)
        return jnp.concatenate([a[j:], pad])[: a.shape[0]]

    reward = sum(sign[j] * on(plies.reward, j, 0.0) for j in range(n))
    ahead: Batch = eqx.tree_at(
        lambda b: (b.reward, b.next_obs, b.done),
        plies,
        (
            jnp.asarray(reward, jnp.float32),
            on(plies.next_obs, n - 1, False),
            on(plies.done, n - 1, True),
        ),
    )
    return ahead


class _Carry(eqx.Module):
    online: Network
    target: Network
    opt_state: Any
    key: jax.Array
    replay: Replay  # of Batch rows
    steps: jax.Array  # int32: gradient steps so far


def _x_to_move(obs: jax.Array) -> jax.Array:
    """Whether X moves, from a mover-side observation (X moves when the counts are even)."""
    return obs[..., 0].sum(-1) == obs[..., 1].sum(-1)


class DQNTrainer(IterationTrainer):
    """Runs iterations of ε-greedy self-play and Q-learning; checkpoints are arrays."""

    algorithm = LEARNER

    def __init__(self, config: DQNConfig) -> None:
        key, network = self._prepare(config, optax.adam(config.learning_rate))
        self.capacity = self.per_iteration * config.replay
        self.inverse = jnp.asarray(np.argsort(np.asarray(self.perms), axis=1).astype(np.int32))
        n, cells = self.capacity, self.cells
        self.carry = _Carry(
            online=network,
            target=network,
            opt_state=self.optimizer.init(eqx.filter(network, eqx.is_array)),
            key=key,
            replay=Replay.empty(
                Batch(
                    obs=jnp.zeros((n, cells, 2), jnp.bool_),
                    action=jnp.zeros(n, jnp.int32),
                    reward=jnp.zeros(n, jnp.float32),
                    next_obs=jnp.zeros((n, cells, 2), jnp.bool_),
                    done=jnp.zeros(n, jnp.bool_),
                    weight=jnp.zeros(n, jnp.float32),
                )
            ),
            steps=jnp.int32(0),
        )
        super().__init__()

    def _playing(self) -> Network:
        online: Network = self.carry.online
        return online

    # -- the rule -----------------------------------------------------------------------
    def q_values(self, network: Network, obs: jax.Array) -> jax.Array:
        """Action values from the mover's side for mover-side observations (n, cells, 2)."""
        if self.config.perspective == "mover":
            return jax.vmap(network)(obs)[0]
        x_moves = _x_to_move(obs)
        absolute = jnp.where(x_moves[:, None, None], obs, obs[..., ::-1])
        q = jax.vmap(network)(absolute)[0]
        return jnp.where(x_moves[:, None], q, -q)

    def targets(self, online: Network, target: Network, batch: Batch) -> jax.Array:
        """y for each transition (see the module's doc); no gradient flows through it."""
        legal = ~(batch.next_obs[..., 0] | batch.next_obs[..., 1])
        q_target = self.q_values(target, batch.next_obs)
        if self.config.double:
            q_online = self.q_values(online, batch.next_obs)
            pick = jnp.argmax(jnp.where(legal, q_online, -jnp.inf), axis=-1)
            boot = jnp.take_along_axis(q_target, pick[:, None], axis=1)[:, 0]
        else:
            boot = jnp.max(jnp.where(legal, q_target, -jnp.inf), axis=-1)
        boot = jnp.where(batch.done | ~legal.any(-1), 0.0, boot)
        discount = (-self.config.gamma) ** self.config.n_step
        y: jax.Array = jax.lax.stop_gradient(batch.reward + discount * boot)
        return y

    def loss(self, online: Network, target: Network, batch: Batch) -> jax.Array:
        """Half the weighted mean squared error between Q(s, a) and its target."""
        y = self.targets(online, target, batch)
        q = self.q_values(online, batch.obs)
        chosen = jnp.take_along_axis(q, batch.action[:, None], axis=1)[:, 0]
        total = jnp.maximum(batch.weight.sum(), 1.0)
        return 0.5 * jnp.sum(batch.weight * (chosen - y) ** 2) / total

    def update(
        self, online: Network, target: Network, opt_state: Any, batch: Batch
    ) -> tuple[Network, Any, jax.Array]:
        """One adam step on :meth:`loss`: (new online network, optimiser state, loss)."""
        loss, grads = eqx.filter_value_and_grad(self.loss)(online, target, batch)
        updates, opt_state = self.optimizer.update(
            grads, opt_state, eqx.filter(online, eqx.is_array)
        )
        return eqx.apply_updates(online, updates), opt_state, loss

    # -- one iteration ------------------------------------------------------------------
    def _selfplay(self, network: Network, key: jax.Array, epsilon: jax.Array) -> Batch:
        games = self.config.games_per_iteration
        key, k_init = jax.random.split(key)
        state = jax.vmap(self.env.init)(jax.random.split(k_init, games))

        def move(state: State, key: jax.Array) -> tuple[State, Batch]:
            k_explore, k_random = jax.random.split(key)
            obs = state.observation.reshape(games, self.cells, 2)
            q = self.q_values(network, obs)
            greedy = jnp.argmax(jnp.where(state.legal_action_mask, q, -jnp.inf), axis=-1)
            explore = jax.random.uniform(k_explore, (games,)) < epsilon
            action = jnp.where(explore, uniform_legal(k_random, state), greedy)
            after = jax.vmap(self.env.step)(state, action)
            mover = state.current_player
            reward = mover_reward(after, mover)
            record = Batch(
                obs=obs,
                action=action.astype(jnp.int32),
                reward=reward.astype(jnp.float32),
                next_obs=after.observation.reshape(games, self.cells, 2),
                done=after.terminated,
                weight=(~state.terminated).astype(jnp.float32),
            )
            return after, record

        _, plies = jax.lax.scan(move, state, jax.random.split(key, self.cells))
        plies = looking_ahead(plies, self.config.n_step, self.config.gamma)
        flat: Batch = jax.tree_util.tree_map(lambda a: a.reshape(-1, *a.shape[2:]), plies)
        return flat

    def _augment(self, batch: Batch, key: jax.Array) -> Batch:
        pick = jax.random.randint(key, (batch.action.shape[0],), 0, len(self.perms))
        perm, inverse = self.perms[pick], self.inverse[pick]
        moved: Batch = eqx.tree_at(
            lambda b: (b.obs, b.next_obs, b.action),
            batch,
            (
                jnp.take_along_axis(batch.obs, perm[:, :, None], axis=1),
                jnp.take_along_axis(batch.next_obs, perm[:, :, None], axis=1),
                jnp.take_along_axis(inverse, batch.action[:, None], axis=1)[:, 0],
            ),
        )
        return moved

    def _iterate(self, carry: _Carry, iteration: jax.Array) -> tuple[_Carry, dict[str, jax.Array]]:
        cfg = self.config
        key, play_key, train_key = jax.random.split(carry.key, 3)
        episode = iteration * cfg.games_per_iteration
        epsilon = schedule_value(cfg.epsilon, episode, cfg.episodes)
        replay = carry.replay.write(self._selfplay(carry.online, play_key, epsilon))

        def step(
            state: tuple[Network, Network, Any, jax.Array], key: jax.Array
        ) -> tuple[tuple[Network, Network, Any, jax.Array], jax.Array]:
            online, target, opt_state, steps = state
            k_pick, k_sym = jax.random.split(key)
            batch: Batch = replay.pick(k_pick, cfg.minibatch)
            if cfg.augment:
                batch = self._augment(batch, k_sym)
            online, opt_state, loss = self.update(online, target, opt_state, batch)
            steps = steps + 1
            copy = steps % cfg.target_every == 0
            target = jax.tree_util.tree_map(lambda t, o: jnp.where(copy, o, t), target, online)
            return (online, target, opt_state, steps), loss

        (online, target, opt_state, steps), losses = jax.lax.scan(
            step,
            (carry.online, carry.target, carry.opt_state, carry.steps),
            jax.random.split(train_key, cfg.updates),
        )
        new = _Carry(online, target, opt_state, key, replay, steps)
        last = losses[-1] if cfg.updates else jnp.float32(0)
        return new, {"loss": last, "epsilon": epsilon}
