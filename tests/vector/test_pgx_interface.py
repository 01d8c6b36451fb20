"""Code written for pgx runs on tttlab.vector unchanged: pgx's auto-reset wrapper, and an
mctx search loop in the style of pgx's AlphaZero example."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import mctx
import numpy as np
import pytest

from tttlab.vector import make

pgx = pytest.importorskip("pgx")


def _interface(env: object) -> dict[str, object]:
    return {name: callable(getattr(env, name, None)) for name in ("init", "step", "observe")} | {
        name: getattr(env, name, None) is not None
        for name in ("id", "version", "num_players", "num_actions", "observation_shape")
    }


def test_same_interface_as_pgx_tic_tac_toe() -> None:
    ours, theirs = make("3x3k3"), pgx.make("tic_tac_toe")
    assert _interface(ours) == _interface(theirs)
    assert all(_interface(ours).values())
    assert ours.num_actions == theirs.num_actions
    assert ours.observation_shape == theirs.observation_shape
    a, b = ours.init(jax.random.PRNGKey(0)), theirs.init(jax.random.PRNGKey(0))
    for field in (
        "current_player",
        "observation",
        "rewards",
        "terminated",
        "truncated",
        "legal_action_mask",
    ):
        assert np.shape(getattr(a, field)) == np.shape(getattr(b, field))
        assert np.asarray(getattr(a, field)).dtype == np.asarray(getattr(b, field)).dtype


@pytest.mark.parametrize("board", ["3x3k3", "4x4k4", "5x5k4"])
def test_pgx_auto_reset_and_mctx_search(board: str) -> None:
    env = make(board)
    batch = 8
    step = jax.vmap(pgx.experimental.auto_reset(env.step, env.init))

    def recurrent_fn(params, key, action, state):  # type: ignore[no-untyped-def]
        del params, key
        mover = state.current_player
        state = jax.vmap(env.step)(state, action)
        reward = state.rewards[jnp.arange(batch), mover]
        value = jnp.zeros(batch)
        logits = jnp.where(state.legal_action_mask, 0.0, jnp.finfo(jnp.float32).min)
        discount = jnp.where(state.terminated, 0.0, -1.0)
        out = mctx.RecurrentFnOutput(
            reward=reward, discount=discount, prior_logits=logits, value=value
        )
        return out, state

    @jax.jit
    def play(key):  # type: ignore[no-untyped-def]
        state = jax.vmap(env.init)(jax.random.split(key, batch))

        def body(state, key):  # type: ignore[no-untyped-def]
            k1, k2 = jax.random.split(key)
            root = mctx.RootFnOutput(
                prior_logits=jnp.zeros((batch, env.num_actions)),
                value=jnp.zeros(batch),
                embedding=state,
            )
            out = mctx.gumbel_muzero_policy(
                params=None,
                rng_key=k1,
                root=root,
                recurrent_fn=recurrent_fn,
                num_simulations=16,
                invalid_actions=~state.legal_action_mask,
            )
            legal = jnp.take_along_axis(state.legal_action_mask, out.action[:, None], 1)
            state = step(state, out.action, jax.random.split(k2, batch))
            return state, (legal[:, 0], state.terminated)

        return jax.lax.scan(body, state, jax.random.split(key, 3 * env.num_actions))[1]

    legal, terminated = play(jax.random.PRNGKey(0))
    assert bool(np.asarray(legal).all())  # the search never picks an illegal move
    assert int(np.asarray(terminated).sum()) >= batch  # games end and restart
