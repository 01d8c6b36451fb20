"""tttlab.vector's rules against tttlab.game.Position, at every ply of seeded playouts."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tttlab.game import Geometry, Player, Position
from tttlab.vector import Env, make

GAMES = 1_000


def _playouts(board: str, games: int, seed: int) -> dict[str, np.ndarray]:
    """Random legal playouts in the batched env: what it says at every ply."""
    env = make(board)
    cells = env.num_actions

    def body(state, key):  # type: ignore[no-untyped-def]
        mask = state.legal_action_mask
        noise = jax.random.uniform(key, mask.shape)
        action = jnp.argmax(jnp.where(mask, noise, -1.0), axis=-1)
        after = jax.vmap(env.step)(state, action)
        record = {
            "board": state.board,
            "mask": mask,
            "player": state.current_player,
            "action": action,
            "terminated": after.terminated,
            "rewards": after.rewards,
            "next_player": after.current_player,
        }
        return after, record

    @jax.jit
    def run(key):  # type: ignore[no-untyped-def]
        state = jax.vmap(env.init)(jax.random.split(key, games))
        _, trace = jax.lax.scan(body, state, jax.random.split(key, cells + 1))
        return trace

    return {k: np.asarray(v) for k, v in run(jax.random.PRNGKey(seed)).items()}


@pytest.mark.parametrize(
    ("board", "seed"), [("3x3k3", 0), ("3x4k3", 1), ("4x4k4", 2), ("5x5k4", 3)]
)
def test_rules_agree_with_position(board: str, seed: int) -> None:
    geometry = Geometry.parse(board)
    trace = _playouts(board, GAMES, seed)
    plies, games = trace["player"].shape
    checked = 0
    for g in range(games):
        position = Position.initial(geometry)
        for t in range(plies):
            cells = tuple(int(c) for c in trace["board"][t, g])
            assert cells == position.cells
            if position.is_terminal:
                # pgx's conventions after the end: every action legal, no rewards.
                assert trace["mask"][t, g].all()
                assert not trace["rewards"][t, g].any()
                assert trace["terminated"][t, g]
                continue
            legal = tuple(int(m) for m in np.flatnonzero(trace["mask"][t, g]))
            assert legal == position.legal_moves
            mover = position.to_move
            assert trace["player"][t, g] == (0 if mover is Player.X else 1)
            position = position.apply(int(trace["action"][t, g]))
            checked += 1
            assert bool(trace["terminated"][t, g]) == position.is_terminal
            expected = np.zeros(2)
            if position.winner is not None:
                winner = 0 if position.winner is Player.X else 1
                expected[winner], expected[1 - winner] = 1.0, -1.0
            np.testing.assert_array_equal(trace["rewards"][t, g], expected)
            assert trace["next_player"][t, g] == 1 - trace["player"][t, g]
        assert position.is_terminal  # every game ends within `cells` plies
    assert checked >= GAMES * geometry.k


def test_illegal_action_ends_the_game_against_the_mover() -> None:
    env = make("3x3k3")
    state = env.step(env.init(jax.random.PRNGKey(0)), 4)  # X in the centre
    state = env.step(state, 4)  # O plays the same cell
    assert bool(state.terminated)
    np.testing.assert_array_equal(np.asarray(state.rewards), [1.0, -1.0])
    again = env.step(state, 0)  # a finished game does not change
    np.testing.assert_array_equal(np.asarray(again.board), np.asarray(state.board))
    assert not np.asarray(again.rewards).any()


def test_observation_is_from_the_movers_side() -> None:
    env = make("3x4k3")
    state = env.step(env.init(jax.random.PRNGKey(0)), 5)  # X at row 1, col 1
    obs = np.asarray(state.observation)
    assert obs.shape == (3, 4, 2) == env.observation_shape
    assert obs[1, 1, 1]  # O to move: X's stone is "theirs"
    assert not obs[..., 0].any()
    np.testing.assert_array_equal(np.asarray(env.observe(state, 0)), obs[..., ::-1])


def _random_actions(env: Env, games: int, plies: int, seed: int) -> list[np.ndarray]:
    """Every field after each of ``plies`` random actions, occupied and off-board ones (-1 and
    ``cells``) among them, in ``games`` games at once."""
    cells = env.num_actions

    def body(state, key):  # type: ignore[no-untyped-def]
        after = jax.vmap(env.step)(state, jax.random.randint(key, (games,), -1, cells + 1))
        fields = (after.board, after.legal_action_mask, after.current_player, after.rewards)
        return after, (*fields, after.terminated, after._step_count)

    @jax.jit
    def run(key):  # type: ignore[no-untyped-def]
        state = jax.vmap(env.init)(jax.random.split(key, games))
        return jax.lax.scan(body, state, jax.random.split(key, plies))[1]

    return [np.asarray(field) for field in run(jax.random.PRNGKey(seed))]


def test_the_state_is_small_and_keeps_pgx_types() -> None:
    """A restart by ``where`` over every field costs as much as the state is large: 22 bytes a
    game on 3x3 (board 9, mask 9, four one-byte fields). pgx's types are kept where read."""
    env = make("3x3k3")
    state = env.step(env.init(jax.random.PRNGKey(0)), 4)
    assert sum(leaf.nbytes for leaf in jax.tree.leaves(state)) == 22
    assert state.current_player.dtype == jnp.int32
    assert int(state.current_player) == 1
    assert state.rewards.dtype == jnp.float32
    assert state.rewards.shape == (2,)
    assert state._step_count.dtype == jnp.int32
    assert int(state._step_count) == 1
    assert not bool(state.truncated)
    changed = state.replace(rewards=jnp.float32([-1.0, 1.0]), current_player=jnp.int32(0))
    assert changed.rewards.tolist() == [-1.0, 1.0]
    assert int(changed.current_player) == 0
