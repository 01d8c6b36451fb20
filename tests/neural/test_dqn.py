"""DQN on the batched environment: the update rule by hand, masking, exact judgements."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.neural.conftest import assert_resume_equals_whole
from tttlab.agents.network import NetworkAgent, encode, forward
from tttlab.evaluation import evaluate_seats
from tttlab.game import Geometry, Position
from tttlab.neural.dqn import Batch, DQNConfig, DQNTrainer, looking_ahead
from tttlab.neural.network import init_network, to_params


def mover_obs(text: str) -> np.ndarray:
    """A position's observation from its mover's side: (cells, 2) bool."""
    position = Position.from_string(text)
    cells = np.array(position.cells)
    return encode(cells[None], np.array([int(position.to_move)]))[0].reshape(-1, 2) > 0


def hand_batch() -> tuple[Batch, list[str]]:
    """Two transitions by hand: X completes the top row (the end, reward 1), and a quiet
    move that leaves a position for O (reward 0; O's best reply is what bootstraps)."""
    rows = [
        ("XX./OO./...", 2, "XXX/OO./...", 1.0, True),
        ("X../.O./...", 8, "X../.O./..X", 0.0, False),
    ]
    batch = Batch(
        obs=jnp.asarray(np.stack([mover_obs(s) for s, *_ in rows])),
        action=jnp.asarray([a for _, a, *_ in rows], jnp.int32),
        reward=jnp.asarray([r for *_, r, _ in rows], jnp.float32),
        next_obs=jnp.asarray(
            np.stack([mover_obs(n) if not d else mover_obs(s) for s, _, n, _, d in rows])
        ),
        done=jnp.asarray([d for *_, d in rows]),
        weight=jnp.ones(2, jnp.float32),
    )
    # the next observation of the end is never read (done); keep it a legal shape
    return batch, [n for _, _, n, _, _ in rows]


def numpy_q(config: DQNConfig, network: eqx.Module, text: str) -> np.ndarray:
    """Action values from the mover's side, by the numpy forward pass of agent files."""
    agent = NetworkAgent(
        "dqn", config.geometry, config.architecture, to_params(config.architecture, network)
    )
    position = Position.from_string(text)
    q, _ = agent.outputs(np.array([position.cells]), np.array([int(position.to_move)]))
    return np.asarray(q[0], np.float64)


@pytest.mark.parametrize("perspective", ["mover", "x"])
@pytest.mark.parametrize("double", [True, False])
def test_targets_and_one_adam_step_by_hand(perspective: str, double: bool) -> None:
    lr, gamma = 0.01, 0.9
    config = DQNConfig(
        Geometry(),
        episodes=1,
        gamma=gamma,
        hidden=(16,),
        double=double,
        perspective=perspective,
        learning_rate=lr,
    )
    trainer = DQNTrainer(config)
    online = init_network(config.architecture, jax.random.PRNGKey(1))
    target = init_network(config.architecture, jax.random.PRNGKey(2))
    batch, nexts = hand_batch()

    # y by hand: 1 for the win; for the quiet move, −γ · (target's value of O's reply),
    # the reply picked by the online network (double) or the target network (not)
    after = Position.from_string(nexts[1])
    legal = list(after.legal_moves)
    q_online, q_target = numpy_q(config, online, nexts[1]), numpy_q(config, target, nexts[1])
    chooser = q_online if double else q_target
    reply = legal[int(np.argmax(chooser[legal]))]
    expected = np.array([1.0, -gamma * q_target[reply]])
    found = np.asarray(trainer.targets(online, target, batch), np.float64)
    np.testing.assert_allclose(found, expected, rtol=1e-5, atol=1e-6)

    # the loss: half the mean squared error of Q(s, a) against y
    q_before = np.array(
        [numpy_q(config, online, "XX./OO./...")[2], numpy_q(config, online, "X../.O./...")[8]]
    )
    loss = float(trainer.loss(online, target, batch))
    assert loss == pytest.approx(0.5 * np.mean((q_before - expected) ** 2), rel=1e-5)

    # one adam step from a fresh state moves every parameter by −lr · g / (|g| + eps),
    # with g the gradient of that loss taken here independently
    y = jnp.asarray(expected, jnp.float32)

    def by_hand(network: eqx.Module) -> jax.Array:
        q = trainer.q_values(network, batch.obs)
        chosen = q[jnp.arange(2), batch.action]
        return 0.5 * jnp.mean((chosen - y) ** 2)

    grads = eqx.filter_grad(by_hand)(online)
    opt_state = trainer.optimizer.init(eqx.filter(online, eqx.is_array))
    stepped, _, reported = trainer.update(online, target, opt_state, batch)
    assert float(reported) == pytest.approx(loss, rel=1e-6)
    for before, after_, g in zip(
        jax.tree_util.tree_leaves(eqx.filter(online, eqx.is_array)),
        jax.tree_util.tree_leaves(eqx.filter(stepped, eqx.is_array)),
        jax.tree_util.tree_leaves(grads),
        strict=True,
    ):
        g = np.asarray(g, np.float64)
        want = np.asarray(before, np.float64) - lr * g / (np.abs(g) + 1e-8)
        np.testing.assert_allclose(np.asarray(after_), want, rtol=1e-4, atol=1e-6)
    # and the values it was fitted on move towards their targets
    assert float(trainer.loss(stepped, target, batch)) < loss


def test_the_bootstrap_never_values_an_occupied_cell() -> None:
    config = DQNConfig(Geometry(), episodes=1, hidden=(8,), double=False)
    trainer = DQNTrainer(config)
    network = init_network(config.architecture, jax.random.PRNGKey(0))
    # O's reply values peak at cell 0, which X holds: the max must skip it
    bias = network.heads[0].bias.at[0].set(100.0)
    tempting = eqx.tree_at(lambda n: n.heads[0].bias, network, bias)
    batch, nexts = hand_batch()
    y = np.asarray(trainer.targets(tempting, tempting, batch))
    legal = list(Position.from_string(nexts[1]).legal_moves)
    assert y[1] == pytest.approx(-max(numpy_q(config, tempting, nexts[1])[legal]), rel=1e-5)
    assert y[1] > -50


def test_numpy_forward_equals_the_trainer_in_both_perspectives() -> None:
    rng = np.random.default_rng(0)
    for perspective in ("mover", "x"):
        config = DQNConfig(Geometry(3, 4, 3), episodes=1, hidden=(32, 16), perspective=perspective)
        trainer = DQNTrainer(config)
        network = init_network(config.architecture, jax.random.PRNGKey(5))
        positions = []
        for _ in range(40):
            position = Position.initial(config.geometry)
            for _ in range(int(rng.integers(0, 8))):
                if position.is_terminal:
                    break
                position = position.apply(int(rng.choice(list(position.legal_moves))))
            positions.append(position)
        boards = np.array([p.cells for p in positions])
        movers = np.array([int(p.to_move) for p in positions])
        obs = encode(boards, movers).reshape(len(positions), -1, 2) > 0
        ours = np.asarray(trainer.q_values(network, jnp.asarray(obs)))
        agent = NetworkAgent(
            "dqn", config.geometry, config.architecture, to_params(config.architecture, network)
        )
        theirs, _ = agent.outputs(boards, movers)
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)
    # the x perspective reads the board from X's side: raw values of the same planes
    params = to_params(config.architecture, network)
    x_side, _ = forward(config.architecture, params, encode(boards, np.ones(len(boards))))
    np.testing.assert_allclose(theirs * np.where(movers == 1, 1, -1)[:, None], x_side, atol=1e-5)


@pytest.mark.parametrize("epsilon", [0.0, 0.5, 1.0])
def test_self_play_plays_only_legal_moves_and_records_them_faithfully(epsilon: float) -> None:
    config = DQNConfig(Geometry(), episodes=256, batch=256, hidden=(16,))
    trainer = DQNTrainer(config)
    play = jax.jit(trainer._selfplay)
    seeded = [
        play(trainer.carry.online, jax.random.PRNGKey(seed), jnp.float32(epsilon))
        for seed in range(8)
    ]  # 2,048 games
    batch = seeded[0]
    augmented = [trainer._augment(b, jax.random.PRNGKey(100 + i)) for i, b in enumerate(seeded)]
    for b in [*seeded, *augmented]:
        obs, nxt = np.asarray(b.obs), np.asarray(b.next_obs)
        action, live = np.asarray(b.action), np.asarray(b.weight) > 0
        occupied, after = obs.any(-1), nxt.any(-1)
        rows = np.arange(len(action))
        assert not occupied[rows, action][live].any()  # never onto a stone
        # the next position is this one plus the one stone, seen from the other side
        placed = after & ~occupied
        assert (placed.sum(-1)[live] == 1).all()
        assert placed[rows, action][live].all()
        np.testing.assert_array_equal(nxt[live][..., 1] & occupied[live], obs[live][..., 0])
    # every game is recorded to its end: one ending transition per game, rewards 1 or 0
    done, reward = np.asarray(batch.done), np.asarray(batch.reward)
    live = np.asarray(batch.weight) > 0
    ends = np.asarray(batch.done & (batch.weight > 0))
    assert ends.sum() == config.games_per_iteration
    assert set(np.unique(reward[live & done])) <= {0.0, 1.0}
    assert (reward[live & ~done] == 0).all()
    games = live.reshape(config.geometry.cells, -1).sum(0)
    assert games.min() >= 5
    assert games.max() <= 9


def hand_game() -> Batch:
    """One 3×3 game as self-play records it, time first (9 plies, 1 game): X 1, O 4, X 2,
    O 5, X 3 wins at ply 4; plies 5 to 8 are padding."""
    boards = ["...|...|...", "X..|...|...", "X..|O..|...", "XX.|O..|...", "XX.|OO.|..."]
    boards += ["XXX|OO.|..."] * 5
    obs = np.stack([mover_obs(b.replace("|", "/")) for b in boards])
    return Batch(
        obs=jnp.asarray(obs[:9, None]),
        action=jnp.asarray([0, 3, 1, 4, 2, 0, 0, 0, 0], jnp.int32)[:, None],
        reward=jnp.asarray([0, 0, 0, 0, 1, 0, 0, 0, 0], jnp.float32)[:, None],
        next_obs=jnp.asarray(obs[1:, None]),
        done=jnp.asarray([False] * 4 + [True] * 5)[:, None],
        weight=jnp.asarray([1.0] * 5 + [0.0] * 4)[:, None],
    )


def test_n_step_transitions_by_hand() -> None:
    game, gamma = hand_game(), 0.9
    assert looking_ahead(game, 1, gamma) is game
    two = looking_ahead(game, 2, gamma)
    # O's move at ply 3 lets X win at ply 4: −γ for O; X's moves before see no reward yet
    np.testing.assert_allclose(np.asarray(two.reward[:5, 0]), [0, 0, 0, -0.9, 1], rtol=1e-6)
    assert np.asarray(two.done[:, 0]).tolist() == [False] * 3 + [True] * 6
    # s′ is the position two plies on (X to move again after X's move at ply 2)
    np.testing.assert_array_equal(np.asarray(two.next_obs[2, 0]), mover_obs("XX./OO./..."))
    np.testing.assert_array_equal(np.asarray(two.next_obs[0, 0]), mover_obs("X../O../..."))
    three = looking_ahead(game, 3, gamma)
    np.testing.assert_allclose(np.asarray(three.reward[:5, 0]), [0, 0, 0.81, -0.9, 1], rtol=1e-6)
    assert np.asarray(three.done[:, 0]).tolist() == [False] * 2 + [True] * 7
    np.testing.assert_array_equal(np.asarray(three.next_obs[1, 0]), mover_obs("XX./OO./..."))
    # the rest is the one-ply record's
    for field in ("obs", "action", "weight"):
        np.testing.assert_array_equal(
            np.asarray(getattr(three, field)), np.asarray(getattr(game, field))
        )


def test_an_n_step_target_bootstraps_for_the_side_to_move_n_plies_on() -> None:
    # X's first move in hand_game, three plies ahead: O is to move at s′, so its
    # best value counts against X, times γ³
    config = DQNConfig(Geometry(), episodes=10, n_step=3, gamma=0.9, double=False)
    trainer = DQNTrainer(config)
    three = looking_ahead(hand_game(), 3, 0.9)
    row: Batch = jax.tree_util.tree_map(lambda a: a[0], three)  # ply 0: s′ = ply 3's position
    y = float(trainer.targets(trainer.carry.online, trainer.carry.target, row)[0])
    q = numpy_q(config, trainer.carry.target, "XX./O../...")
    best = max(q[c] for c in range(9) if "XX.O....."[c] == ".")
    assert y == pytest.approx(-(0.9**3) * best, rel=1e-5, abs=1e-6)


@pytest.fixture(scope="module")
def short_run() -> DQNTrainer:
    trainer = DQNTrainer(DQNConfig(Geometry(), episodes=2048, seed=0))
    trainer.run(16)
    return trainer


def test_a_short_run_beats_random_as_x(short_run: DQNTrainer) -> None:
    reports = evaluate_seats(short_run.agent(), Geometry())
    assert reports["X"].win >= 0.85  # exact share of wins against a uniformly random O
    assert reports["X"].loss < 0.05


def test_resume_equals_an_uninterrupted_run() -> None:
    config = DQNConfig(Geometry(3, 4, 3), episodes=256, seed=2, batch=64, updates=4, replay=2)
    arrays = assert_resume_equals_whole(lambda: DQNTrainer(config))
    with pytest.raises(ValueError, match="another training state"):
        DQNTrainer(DQNConfig(Geometry(), episodes=256)).restore(arrays, 2)
