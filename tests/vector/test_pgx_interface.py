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


def test_the_same_game_as_pgx_tic_tac_toe_move_by_move() -> None:
    """Both environments play the same actions (legal ones, occupied cells, and moves after
    the end) in 512 games; at every step they agree on everything pgx's interface shows.
    pgx draws the seat order at ``init``, so its ids are mapped to X and O first. One
    difference: on an occupied cell pgx writes the move over the stone before it ends the
    game, where tttlab leaves the board as it was, so the (final) observation of a game
    lost that way is compared only up to that move."""
    ours, theirs = make("3x3k3"), pgx.make("tic_tac_toe")
    assert ours.num_actions == theirs.num_actions
    assert ours.observation_shape == theirs.observation_shape
    games = 512
    keys = jax.random.split(jax.random.PRNGKey(0), games)
    a, b = jax.vmap(ours.init)(keys), jax.vmap(theirs.init)(keys)
    x_id = np.asarray(b.current_player)  # pgx's id of the player who moves first
    assert 0 < x_id.sum() < games  # both seat orders occur
    rows = np.arange(games)
    actions = np.asarray(jax.random.randint(jax.random.PRNGKey(1), (14, games), 0, 9))
    step_ours, step_theirs = jax.jit(jax.vmap(ours.step)), jax.jit(jax.vmap(theirs.step))
    spoiled = np.zeros(games, bool)  # lost by playing an occupied cell
    for ply in range(14):
        for name in ("terminated", "truncated", "legal_action_mask"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), (ply, name)
        seen = np.asarray(a.observation)[~spoiled]
        assert np.array_equal(seen, np.asarray(b.observation)[~spoiled]), ply
        x_moves = np.asarray(b.current_player) == x_id
        assert np.array_equal(np.asarray(a.current_player) == 0, x_moves), ply
        rewards_b = np.asarray(b.rewards)
        as_x_and_o = np.stack([rewards_b[rows, x_id], rewards_b[rows, 1 - x_id]], axis=1)
        assert np.array_equal(np.asarray(a.rewards), as_x_and_o), ply
        live = ~np.asarray(a.terminated)
        spoiled |= live & ~np.asarray(a.legal_action_mask)[rows, actions[ply]]
        action = jnp.asarray(actions[ply])
        a, b = step_ours(a, action), step_theirs(b, action)
    assert np.asarray(a.terminated).all()
    assert 0 < spoiled.sum() < games  # both kinds of ending were compared


def test_an_action_off_the_board_loses_as_illegal_actions_do() -> None:
    """pgx's rule for an illegal action: the game ends and the mover gets −1. An action
    that is not a cell at all (-1, cells) is illegal too; it used to pass the turn."""
    env = make("3x3k3")
    start = env.init(jax.random.PRNGKey(0))
    for action in (-1, 9, 100):
        after = env.step(start, jnp.int32(action))
        assert bool(after.terminated)
        assert np.asarray(after.rewards).tolist() == [-1.0, 1.0]
        assert np.array_equal(after.board, start.board)
        again = env.step(after, jnp.int32(0))  # after the end: nothing changes, no reward
        assert np.asarray(again.rewards).tolist() == [0.0, 0.0]
        assert np.array_equal(again.board, after.board)


@pytest.mark.parametrize("board", ["3x3k3", "5x5k4"])
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
            state = step(state, out.action, jax.random.split(k2, batch))
            return state, (state.terminated, state.rewards, state.board)

        return jax.lax.scan(body, state, jax.random.split(key, 3 * env.num_actions))[1]

    terminated, rewards, boards = (np.asarray(x) for x in play(jax.random.PRNGKey(0)))
    assert terminated.sum() >= batch  # games end ...
    # ... and auto_reset hands back a fresh board with the final rewards of the game
    assert (boards[terminated] == 0).all()
    assert (rewards[terminated].sum(axis=-1) == 0).all()
    assert (rewards[~terminated] == 0).all()


def test_mctx_search_over_the_environment_finds_a_win_in_one() -> None:
    """X X . / O O . / . . . with X to move: the search takes cell 2."""
    win = make("3x3k3")
    root_state = win.from_boards(jnp.array([[1, 1, 0, 2, 2, 0, 0, 0, 0]]))

    def one(params, key, action, state):  # type: ignore[no-untyped-def]
        del params, key
        mover = state.current_player
        state = jax.vmap(win.step)(state, action)
        out = mctx.RecurrentFnOutput(
            reward=state.rewards[jnp.arange(1), mover],
            discount=jnp.where(state.terminated, 0.0, -1.0),
            prior_logits=jnp.where(state.legal_action_mask, 0.0, jnp.finfo(jnp.float32).min),
            value=jnp.zeros(1),
        )
        return out, state

    search = jax.jit(  # compiled once: op by op, the search took 14 s
        lambda key: mctx.gumbel_muzero_policy(
            params=None,
            rng_key=key,
            root=mctx.RootFnOutput(
                prior_logits=jnp.zeros((1, 9)), value=jnp.zeros(1), embedding=root_state
            ),
            recurrent_fn=one,
            num_simulations=32,
            invalid_actions=~root_state.legal_action_mask,
        )
    )
    assert int(search(jax.random.PRNGKey(3)).action[0]) == 2
