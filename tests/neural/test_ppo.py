"""PPO on the batched environment: the advantages, the clipped objective and the masked
log-probabilities by hand, masking in self-play, determinism and an exact judgement."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax  # type: ignore[import-untyped]
import pytest

from tests.neural.conftest import assert_resume_equals_whole
from tttlab.agents.network import Architecture, NetworkAgent, encode, forward
from tttlab.errors import AgentError
from tttlab.evaluation import evaluate_seats
from tttlab.game import Geometry, Position
from tttlab.neural.network import init_network, to_params
from tttlab.neural.ppo import (
    PPOConfig,
    PPOTrainer,
    Rollout,
    adam_step,
    advantages,
    masked_log_policy,
    ppo_loss,
)

#: A short run that must already beat random as X (measured: 84.4% of games, exactly, with
#: the step annealed; random against random: 58.5%).
SHORT = {"episodes": 4096, "batch": 128, "hidden": (32,), "learning_rate": 0.001}


def test_advantages_by_hand_in_negamax() -> None:
    # one game of three plies, values from each mover's side; X wins on the third ply
    reward = jnp.asarray([[0.0], [0.0], [1.0]])
    value = jnp.asarray([[0.1], [-0.2], [0.3]])
    done = jnp.asarray([[False], [False], [True]])
    lam, gamma = 0.9, 1.0
    adv, ret = advantages(reward, value, done, lam, gamma)
    d2 = 1.0 - 0.3  # the last move: no bootstrap
    d1 = 0.0 - gamma * 0.3 - (-0.2)  # the next position is the opponent's: its value counts against
    d0 = 0.0 - gamma * (-0.2) - 0.1
    a2 = d2
    a1 = d1 - gamma * lam * a2
    a0 = d0 - gamma * lam * a1
    np.testing.assert_allclose(np.asarray(adv)[:, 0], [a0, a1, a2], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ret)[:, 0], [a0 + 0.1, a1 - 0.2, a2 + 0.3], rtol=1e-6)
    # nothing flows back across the end of a game into the next one
    adv2, _ = advantages(
        jnp.asarray([[1.0], [0.0]]),
        jnp.asarray([[0.0], [0.5]]),
        jnp.asarray([[True], [False]]),
        lam,
    )
    assert float(adv2[0, 0]) == pytest.approx(1.0)


def _obs(text: str) -> np.ndarray:
    position = Position.from_string(text)
    cells = np.array(position.cells)
    return encode(cells[None], np.array([int(position.to_move)]))[0].reshape(-1, 2) > 0


def test_the_clipped_objective_and_masked_log_probabilities_by_hand() -> None:
    # a position with two legal moves (cells 7 and 8), O to move
    text = "XOX/OOX/X.."
    position = Position.from_string(text)
    assert position.legal_moves == (7, 8)
    config = PPOConfig(Geometry(), episodes=1, hidden=(16,), clip=0.2, entropy=0.01)
    network = init_network(config.architecture, jax.random.PRNGKey(3))
    params = to_params(config.architecture, network)

    obs = np.stack([_obs(text), _obs(text)])
    legal = np.array([[c == 0 for c in position.cells]] * 2)
    logits, values = forward(
        config.architecture,
        params,
        encode(np.array([position.cells] * 2), np.array([int(position.to_move)] * 2)),
    )
    assert values is not None
    # masked log-softmax by hand: only cells 7 and 8 have probability
    z = logits[0][[7, 8]].astype(np.float64)
    logp_legal = z - np.log(np.exp(z).sum())
    found = np.asarray(masked_log_policy(jnp.asarray(logits), jnp.asarray(legal)))
    np.testing.assert_allclose(found[0, [7, 8]], logp_legal, rtol=1e-5)
    assert np.all(np.exp(found[0, ~legal[0]]) == 0.0)

    # old log-probabilities chosen so that one ratio is clipped and the other is not
    actions = np.array([7, 8])
    old = np.array([logp_legal[0] - 0.5, logp_legal[1] + 0.05])  # ratios e^0.5 and e^-0.05
    adv = np.array([1.0, -2.0])
    ret = np.array([0.4, -0.6])
    batch = Rollout(
        obs=jnp.asarray(obs),
        legal=jnp.asarray(legal),
        action=jnp.asarray(actions, jnp.int32),
        logp=jnp.asarray(old, jnp.float32),
        advantage=jnp.asarray(adv, jnp.float32),
        ret=jnp.asarray(ret, jnp.float32),
        weight=jnp.ones(2, jnp.float32),
    )
    ratio = np.exp(logp_legal - old)
    assert ratio[0] > 1.2  # clipped: min(ρA, 1.2·A) = 1.2 for A = +1
    expected_policy = -np.mean(
        [min(r * a, np.clip(r, 0.8, 1.2) * a) for r, a in zip(ratio, adv, strict=True)]
    )
    expected_value = np.mean((values.astype(np.float64) - ret) ** 2)
    p = np.exp(logp_legal)
    expected_entropy = -(p * logp_legal).sum()
    loss = eqx.filter_jit(ppo_loss)  # one compilation, not one per operation
    total, (pl, vl, h) = loss(network, batch, 0.2, 0.5, 0.01)
    assert float(pl) == pytest.approx(expected_policy, rel=1e-5)
    assert float(vl) == pytest.approx(expected_value, rel=1e-5)
    assert float(h) == pytest.approx(expected_entropy, rel=1e-5)
    assert float(total) == pytest.approx(
        expected_policy + 0.5 * expected_value - 0.01 * expected_entropy, rel=1e-5
    )
    # a row of weight 0 changes nothing
    padded = Rollout(**{**batch.__dict__, "weight": jnp.asarray([1.0, 0.0])})
    _, (pl1, _, _) = loss(network, padded, 0.2, 0.5, 0.01)
    assert float(pl1) == pytest.approx(-min(ratio[0] * 1.0, 1.2), rel=1e-5)

    # one step of the trainer's update lowers that loss
    trainer = PPOTrainer(config)
    opt_state = trainer.optimizer.init(eqx.filter(network, eqx.is_array))
    stepped, _, reported = eqx.filter_jit(trainer.update)(network, opt_state, batch)
    assert float(reported) == pytest.approx(float(total), rel=1e-6)
    assert float(loss(stepped, batch, 0.2, 0.5, 0.01)[0]) < float(total)


@pytest.fixture(scope="module")
def short_run() -> PPOTrainer:
    trainer = PPOTrainer(PPOConfig(Geometry(), seed=0, **SHORT))  # type: ignore[arg-type]
    trainer.run(trainer.config.iterations)
    return trainer


def test_self_play_never_samples_an_illegal_move(short_run: PPOTrainer) -> None:
    play = eqx.filter_jit(short_run.selfplay)
    for seed in range(8):
        rollout = play(short_run.carry.network, jax.random.PRNGKey(seed))
        legal = np.asarray(rollout.legal)
        action = np.asarray(rollout.action)
        played = np.asarray(rollout.weight) > 0
        assert played.sum() > 0
        assert legal[np.arange(len(action)), action][played].all()


def test_a_short_run_beats_random_as_x(short_run: PPOTrainer) -> None:
    reports = evaluate_seats(short_run.agent(), Geometry())
    assert reports["X"].win >= 0.8


def test_resume_equals_an_uninterrupted_run() -> None:
    """Four iterations of the short run's configuration with another seed: the seed is not
    part of the compiled program, so JAX's persistent cache serves the short run's; the
    step size is still annealing when the checkpoint is taken."""
    config = PPOConfig(Geometry(), seed=1, **SHORT)  # type: ignore[arg-type]
    assert_resume_equals_whole(lambda: PPOTrainer(config))


def test_the_stochastic_agent_plays_the_policys_own_distribution() -> None:
    config = PPOConfig(Geometry(), episodes=1, hidden=(16,))
    network = init_network(config.architecture, jax.random.PRNGKey(4))
    agent = NetworkAgent(
        "ppo", Geometry(), config.architecture, to_params(config.architecture, network)
    )
    stochastic = agent.with_stochastic()
    position = Position.from_string("X...O....")
    probabilities = stochastic.move_probabilities(position)
    logits, _ = agent.outputs(np.array([position.cells]), np.array([int(position.to_move)]))
    legal = list(position.legal_moves)
    z = np.exp(logits[0][legal] - logits[0][legal].max())
    np.testing.assert_allclose([probabilities[m] for m in legal], z / z.sum(), rtol=1e-6)
    assert set(probabilities) == set(legal)
    assert len(agent.move_probabilities(position)) == 1  # greedy: its most probable move
    dqn = NetworkAgent("dqn", Geometry(), Architecture(9, (16,), "q"), {})
    with pytest.raises(AgentError, match="only a policy network"):
        dqn.with_stochastic()


def test_the_step_anneals_to_zero_at_the_runs_last_update(short_run: PPOTrainer) -> None:
    config = short_run.config
    schedule = adam_step(config)
    assert callable(schedule)
    positions = config.games_per_iteration * config.geometry.cells
    updates = config.iterations * config.epochs * (positions // config.minibatch)
    counts = [
        int(state.count)
        for state in jax.tree_util.tree_leaves(
            short_run.carry.opt_state, is_leaf=lambda s: isinstance(s, optax.ScaleByScheduleState)
        )
        if isinstance(state, optax.ScaleByScheduleState)
    ]
    assert counts == [updates]  # the run took exactly the updates the schedule spans
    assert float(schedule(0)) == pytest.approx(config.learning_rate)
    assert float(schedule(updates // 2)) == pytest.approx(config.learning_rate / 2)
    assert float(schedule(updates)) == 0.0
    constant = PPOConfig(Geometry(), episodes=10, anneal=False)
    assert adam_step(constant) == constant.learning_rate
    # files written before --anneal trained with a constant step, and resume so
    header = PPOConfig(Geometry(), episodes=10).header()
    assert header["anneal"] is True
    del header["anneal"]
    assert PPOConfig.from_header(Geometry(), 10, 0, header).anneal is False
