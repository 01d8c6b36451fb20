"""AlphaZero on the batched environment: small budgets, exact judgements."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tttlab
from tests.neural.conftest import assert_resume_equals_whole
from tttlab.agents.network import forward
from tttlab.game import Geometry, Player, Position
from tttlab.neural.alphazero import (
    AlphaZeroConfig,
    AlphaZeroTrainer,
    augment,
    search_step,
)
from tttlab.neural.network import from_params, init_network, to_params
from tttlab.vector import State, make


def _trainer(seed: int) -> AlphaZeroTrainer:
    """Two iterations of the 3×3 run that tests/cli/test_alphazero.py trains whole (1,024
    episodes in batches of 128) and judges exactly (X beats random at least 90% of the
    time): the same shapes, so JAX's persistent compilation cache serves both."""
    return AlphaZeroTrainer(AlphaZeroConfig(Geometry(), episodes=256, seed=seed, batch=128))


@pytest.mark.parametrize(
    ("geometry", "conv"), [(Geometry(4, 4, 4), ()), (Geometry(3, 4, 3), (5, 3))]
)
def test_numpy_forward_equals_the_equinox_network(
    geometry: Geometry, conv: tuple[int, ...]
) -> None:
    """Agent files play with numpy what JAX trained, perceptron alone or after
    convolutions (on a board that is not square, so rows and columns cannot swap)."""
    config = AlphaZeroConfig(geometry, episodes=1, conv=conv)
    assert config.architecture.conv == conv
    assert config.architecture.columns == (geometry.cols if conv else 0)
    network = init_network(config.architecture, jax.random.PRNGKey(3))
    params = to_params(config.architecture, network)
    assert sorted(params) == sorted(config.architecture.shapes())
    assert all(params[k].shape == s for k, s in config.architecture.shapes().items())
    size = (64, 2 * geometry.cells)
    x = np.random.default_rng(0).integers(0, 2, size=size).astype(np.float32)
    logits, value = jax.vmap(network)(x)
    np_logits, np_value = forward(config.architecture, params, x)
    np.testing.assert_allclose(np_logits, np.asarray(logits), rtol=1e-4, atol=1e-5)
    assert np_value is not None
    np.testing.assert_allclose(np_value, np.asarray(value), rtol=1e-4, atol=1e-5)
    again = to_params(config.architecture, from_params(config.architecture, params))
    assert all(np.array_equal(again[k], params[k]) for k in params)


def test_resume_equals_an_uninterrupted_run() -> None:
    config = AlphaZeroConfig(Geometry(3, 4, 3), episodes=256, seed=2, batch=64, updates=4)
    arrays = assert_resume_equals_whole(lambda: AlphaZeroTrainer(config))
    with pytest.raises(ValueError, match="another training state"):
        AlphaZeroTrainer(AlphaZeroConfig(Geometry(), episodes=256)).restore(arrays, 2)


def test_the_agent_is_a_moving_average_that_training_never_reads() -> None:
    """``average`` changes only the network that plays: the trained network is the same
    with or without it, and after the first iteration the played one keeps 1/10 of the
    initial network (at most (1 + t) / (10 + t) at iteration t). The averaged run is the
    resume test's, whose program JAX's persistent cache then serves."""
    config = dict(episodes=256, seed=1, batch=64, updates=4)
    plain = AlphaZeroTrainer(AlphaZeroConfig(Geometry(3, 4, 3), average=0.0, **config))
    averaged = AlphaZeroTrainer(AlphaZeroConfig(Geometry(3, 4, 3), **config))
    assert averaged.config.average == 0.98  # the default, held to 1/10 at the first iteration
    assert plain.carry.average is None
    initial = to_params(averaged.config.architecture, averaged.carry.network)
    plain.run(1)
    averaged.run(1)
    trained = plain.agent().params
    assert all(
        np.array_equal(trained[k], v)
        for k, v in to_params(averaged.config.architecture, averaged.carry.network).items()
    )
    played = averaged.agent().params
    for name, array in played.items():
        np.testing.assert_allclose(array, 0.1 * initial[name] + 0.9 * trained[name], atol=1e-6)
    assert any(not np.allclose(played[k], trained[k]) for k in played)
    with pytest.raises(ValueError, match="average"):
        AlphaZeroConfig(Geometry(), episodes=10, average=1.0)


def test_files_from_before_the_averages_resume_without_them() -> None:
    header = AlphaZeroConfig(Geometry(), episodes=100).header()
    assert (header["symmetrize"], header["average"]) == (True, 0.98)
    del header["symmetrize"], header["average"]
    old = AlphaZeroConfig.from_header(Geometry(), 100, 0, header)
    assert (old.symmetrize, old.average) == (False, 0.0)
    assert not old.architecture.symmetrized
    assert AlphaZeroTrainer(old).carry.average is None


def test_the_agent_is_judged_on_both_seats() -> None:
    evaluation = tttlab.evaluate(_trainer(0).agent())
    assert evaluation.X is not None
    assert evaluation.O is not None
    assert evaluation.X.decision_positions > 0
    assert evaluation.O.decision_positions > 0


def _positions(moves: list[int], games: int) -> State:
    env = make("3x3k3")
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), games))
    step = jax.jit(jax.vmap(env.step))
    for move in moves:
        state = step(state, jnp.full(games, move, jnp.int32))
    return state


def test_recurrent_fn_signs_by_hand() -> None:
    """mctx's step from the searching side: in XX./OO./... (X to move) a win at cell 2 gives
    reward +1, discount 0 and no value; a quiet move at cell 8 gives reward 0, discount −1
    (the next position is the opponent's) and the network's value of it; occupied cells get
    the lowest logit."""
    env = make("3x3k3")
    state = _positions([0, 3, 1, 4], games=2)

    def network(observation: jax.Array) -> tuple[jax.Array, jax.Array]:
        return jnp.zeros(9), jnp.float32(0.25)

    out, after = jax.jit(lambda a, s: search_step(env, network, a, s))(
        jnp.array([2, 8], jnp.int32), state
    )
    np.testing.assert_array_equal(np.asarray(out.reward), [1.0, 0.0])
    np.testing.assert_array_equal(np.asarray(out.discount), [0.0, -1.0])
    np.testing.assert_array_equal(np.asarray(out.value), [0.0, 0.25])
    quiet = np.asarray(out.prior_logits[1])
    occupied = [0, 1, 3, 4, 8]
    assert (quiet[occupied] == np.finfo(np.float32).min).all()
    assert (np.delete(quiet, occupied) == 0.0).all()
    assert np.asarray(after.terminated).tolist() == [True, False]


def test_augmentation_moves_the_observation_and_the_policy_together() -> None:
    """Under each of the 8 symmetries, the policy's move is still the cell that wins for X
    on the transformed board (checked with tttlab's rules), and the 8 boards differ."""
    geometry = Geometry()
    position = Position.from_string("XX./OO./...")  # X to move; only cell 2 wins at once
    observation = np.stack(
        [np.array(position.cells) == 1, np.array(position.cells) == 2], axis=-1
    )  # the mover's planes: own stones, then the opponent's
    policy = np.zeros(9, np.float32)
    policy[2] = 1.0
    boards = set()
    for perm in geometry.symmetries:
        o, p = augment(
            jnp.asarray(observation[None]), jnp.asarray(policy[None]), jnp.asarray([perm])
        )
        o, p = np.asarray(o[0]), np.asarray(p[0])
        cells = tuple(int(c) for c in np.where(o[:, 0], 1, np.where(o[:, 1], 2, 0)))
        boards.add(cells)
        moved = Position(geometry, cells).apply(int(np.argmax(p)))
        assert moved.winner == Player.X, (perm, cells)
        assert p.sum() == 1.0
    assert len(boards) == 8


def test_fresh_games_start_after_an_opening_that_ends_nothing() -> None:
    """Openings drawn all at once: every length from 0 to ``opening``, legal stone counts,
    no finished game (a move that would win is where the opening stops), X and O in turn."""
    trainer = AlphaZeroTrainer(AlphaZeroConfig(Geometry(4, 4, 4), episodes=64, opening=14))
    state = jax.jit(trainer._fresh, static_argnums=1)(jax.random.PRNGKey(5), 4096)
    boards = np.asarray(state.board)
    x, o = (boards == 1).sum(axis=1), (boards == 2).sum(axis=1)
    assert ((x == o) | (x == o + 1)).all()
    assert set((x + o).tolist()) == set(range(15))
    assert not np.asarray(state.terminated).any()
    np.testing.assert_array_equal(np.asarray(state.current_player), (x + o) % 2)
    np.testing.assert_array_equal(np.asarray(state.legal_action_mask), boards == 0)
    geometry = Geometry(4, 4, 4)
    for cells in boards[:512]:
        assert Position(geometry, tuple(int(c) for c in cells)).winner is None


def test_self_play_keeps_every_searched_move_of_a_finished_game() -> None:
    """Each slot's first game always ends within the iteration; a kept move's target is the
    result from its mover's side (±1 or 0), and only the games still going at the end are
    left out."""
    trainer = AlphaZeroTrainer(AlphaZeroConfig(Geometry(), episodes=64, batch=64))
    obs, _, value, kept = jax.jit(trainer._selfplay)(trainer.carry.network, jax.random.PRNGKey(2))
    kept, value = np.asarray(kept), np.asarray(value)
    assert kept[0].all()
    assert set(np.unique(value[kept]).tolist()) <= {-1.0, 0.0, 1.0}
    assert not kept[-1].all()  # some games were restarted and are still going
    stones = np.asarray(obs).sum(axis=(2, 3))
    assert (stones[kept] < 9).all()  # never a full board: every kept position has a move
