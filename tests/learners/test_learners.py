"""Update rules on hand-computed episodes, determinism, schedules and training quality.

The hand-made episodes use the 2×2 board with k = 2: any two marks of one side are a line,
so every game is X, O, X and X wins on the third ply, whatever the moves.
"""

from __future__ import annotations

import numpy as np
import pytest

from tttlab.errors import ConfigError
from tttlab.evaluation import evaluate_seats
from tttlab.game import Geometry, Player
from tttlab.learners import TrainConfig, Trainer, default_config
from tttlab.schedules import Schedule

TINY = Geometry(2, 2, 2)


def _config(algorithm: str, **kw: object) -> TrainConfig:
    # Full tables (one row per position) keep the hand computations about positions.
    base = {
        "symmetric": False,
        "episodes": 1,
        "seed": 3,
        "geometry": TINY,
        "epsilon": Schedule("constant", 0.0),
        "alpha": Schedule("constant", 0.5),
    }
    base.update(kw)
    return TrainConfig(algorithm=algorithm, **base)  # type: ignore[arg-type]


def _changed(before: np.ndarray, after: np.ndarray) -> list[tuple[int, ...]]:
    return [tuple(int(i) for i in idx) for idx in np.argwhere(before != after)]


@pytest.mark.parametrize("algorithm", ["q", "sarsa", "expected-sarsa"])
def test_first_episode_only_the_winning_move_changes(algorithm: str) -> None:
    trainer = Trainer(_config(algorithm))
    before = trainer.tables["Q"].copy()
    trainer.run()
    after = trainer.tables["Q"]
    changed = _changed(before, after)
    # Bootstrapped targets are all 0 on the first episode; only X's winning move learns:
    # Q ← 0 + 0.5 · (1 − 0) = 0.5.
    assert len(changed) == 1
    _, state, move = changed[0]
    assert trainer.space.ply[state] == 2
    assert after[0, state, move] == 0.5


def test_q_learning_bootstraps_from_the_best_next_value() -> None:
    trainer = Trainer(_config("q", gamma=0.9))
    q = trainer.tables["Q"][0]
    space = trainer.space
    ply2 = np.flatnonzero(space.ply == 2)
    q[ply2] = np.where(space.next[ply2] >= 0, 1.0, 0.0)  # X's moves at ply 2 are worth 1
    before = trainer.tables["Q"].copy()
    trainer.run()
    after = trainer.tables["Q"][0]
    by_ply = {int(space.ply[s]): (s, m) for _, s, m in _changed(before, trainer.tables["Q"])}
    # O's move at ply 1: target = γ · max over X's next moves = 0.9 → 0.5 · 0.9 = 0.45.
    s1, m1 = by_ply[1]
    assert after[s1, m1] == pytest.approx(0.45)
    # X's winning move: 1 + 0.5 · (1 − 1) = 1, unchanged; the first move's target is
    # γ · min over O's replies at ply 1, and those were 0 before this episode.
    assert 0 not in by_ply
    assert 2 not in by_ply


def test_expected_sarsa_target_mixes_best_and_mean() -> None:
    eps = 0.5
    trainer = Trainer(_config("expected-sarsa", gamma=1.0, epsilon=Schedule("constant", eps)))
    q = trainer.tables["Q"][0]
    space = trainer.space
    ply2 = np.flatnonzero(space.ply == 2)
    q[ply2] = np.where(space.next[ply2] >= 0, np.arange(4) / 10 + 0.1, 0.0)
    before = q.copy()
    trainer.run()
    by_ply = {int(space.ply[s]): (s, m) for s, m in _changed(before, q)}
    s1, m1 = by_ply[1]
    s2 = int(space.next[s1, m1])
    legal = before[s2][space.next[s2] >= 0]  # values when the target was taken
    expected_target = (1 - eps) * legal.max() + eps * legal.mean()
    assert q[s1, m1] == pytest.approx(0.5 * expected_target)


def test_sarsa_target_is_the_move_actually_taken() -> None:
    trainer = Trainer(_config("sarsa", gamma=1.0))
    q = trainer.tables["Q"][0]
    space = trainer.space
    ply2 = np.flatnonzero(space.ply == 2)
    q[ply2] = np.where(space.next[ply2] >= 0, 0.8, 0.0)
    before = q.copy()
    trainer.run()
    by_ply = {int(space.ply[s]): (s, m) for s, m in _changed(before, q)}
    s1, m1 = by_ply[1]
    assert q[s1, m1] == pytest.approx(0.5 * 0.8)
    s2, m2 = by_ply[2]
    assert q[s2, m2] == pytest.approx(0.8 + 0.5 * (1 - 0.8))


def test_double_q_updates_one_table() -> None:
    trainer = Trainer(_config("double-q"))
    before = trainer.tables["Q"].copy()
    trainer.run()
    changed = _changed(before, trainer.tables["Q"])
    assert len(changed) == 1
    table, state, move = changed[0]
    assert trainer.tables["Q"][table, state, move] == 0.5


def test_td_backward_sweep_by_hand() -> None:
    trainer = Trainer(_config("td", draw_reward=0.5))
    v0 = trainer.tables["V"].copy()
    trainer.run()
    v = trainer.tables["V"]
    space = trainer.space
    changed = {int(space.ply[s]) for _, s in _changed(v0, v)}
    assert changed == {1, 2}
    x_row, o_row = v[0], v[1]
    visited = [s for _, s in _changed(v0, v)]
    s1 = next(s for s in visited if space.ply[s] == 1)
    s2 = next(s for s in visited if space.ply[s] == 2)
    # X won: the sweep starts from reward 1, α = 0.5:
    #   V(s3) = 1; V(s2) = 0.5 + 0.5·(1 − 0.5) = 0.75; V(s1) = 0.5 + 0.5·(0.75 − 0.5) = 0.625
    assert x_row[s2] == 0.75
    assert x_row[s1] == 0.625
    # O lost: reward 0: V(s2) = 0.25; V(s1) = 0.5 + 0.5·(0.25 − 0.5) = 0.375
    assert o_row[s2] == 0.25
    assert o_row[s1] == 0.375


def test_td_initial_values_follow_the_course() -> None:
    trainer = Trainer(default_config("td", 1, draw_reward=0.0, symmetric=False))
    v, space = trainer.tables["V"], trainer.space
    assert (v[0][space.winner == 1] == 1).all()
    assert (v[0][space.winner == 2] == 0).all()
    assert (v[0][space.terminal & (space.winner == 0)] == 0).all()
    assert (v[0][~space.terminal] == 0.5).all()
    assert (v[1][space.winner == 2] == 1).all()


@pytest.mark.parametrize("algorithm", ["td", "q", "sarsa", "expected-sarsa", "double-q"])
def test_same_seed_same_tables_whatever_the_batches(algorithm: str) -> None:
    one = Trainer(default_config(algorithm, 3_000, seed=11))
    one.run()
    split = Trainer(default_config(algorithm, 3_000, seed=11))
    for size in (1, 999, 1_500, 500):
        split.run(size)
    other = Trainer(default_config(algorithm, 3_000, seed=12))
    other.run()
    for name in one.tables:
        assert np.array_equal(one.tables[name], split.tables[name])
        assert not np.array_equal(one.tables[name], other.tables[name])


def test_schedules() -> None:
    assert Schedule("constant", 0.3).at(500, 1000) == 0.3
    lin = Schedule("linear", 0.5, 0.1)
    assert lin.at(0, 101) == 0.5
    assert lin.at(100, 101) == pytest.approx(0.1)
    assert lin.at(50, 101) == pytest.approx(0.3)
    exp = Schedule("exponential", 0.4, 0.1)
    assert exp.at(50, 101) == pytest.approx(0.2)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"episodes": 0}, "at least 1"),
        ({"episodes": -5}, "at least 1"),
        ({"epsilon": Schedule("constant", 1.5)}, "within [0, 1]"),
        ({"alpha": Schedule("linear", 0.5)}, "needs an end"),
        ({"alpha": Schedule("exponential", 0.5, 0.0)}, "above 0"),
        ({"gamma": -0.1}, "gamma"),
        ({"algorithm": "nope"}, "unknown algorithm"),
        ({"seat": Player.X}, "fixed opponent"),
    ],
)
def test_bad_configs(kwargs: dict[str, object], fragment: str) -> None:
    config = {"algorithm": "q", "episodes": 10, **kwargs}
    with pytest.raises(ConfigError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        TrainConfig(**config).validate()  # type: ignore[arg-type]


def test_learner_against_a_fixed_random_opponent() -> None:
    from tttlab.agents import RandomAgent

    # Against a random opponent the targets are noisy, so α decays.
    config = default_config(
        "q",
        100_000,
        seed=0,
        seat=Player.X,
        opponent="random",
        epsilon=Schedule("linear", 0.3, 0.0),
        alpha=Schedule("linear", 0.5, 0.05),
    )
    trainer = Trainer(config, RandomAgent(Geometry()))
    trainer.run()
    agent = trainer.agent()
    assert agent.seats == (Player.X,)
    report = evaluate_seats(agent, Geometry())["X"]
    assert report.loss == 0.0
    assert report.win > 0.98


@pytest.mark.parametrize("algorithm", ["td", "q", "sarsa", "expected-sarsa", "double-q"])
def test_defaults_make_an_unbeatable_agent_in_200k_episodes(algorithm: str) -> None:
    trainer = Trainer(default_config(algorithm, 200_000, seed=0))
    trainer.run()
    for seat, report in evaluate_seats(trainer.agent(), Geometry()).items():
        assert report.worst_case == 0, seat
        assert report.optimal_share == 1.0, seat


@pytest.mark.parametrize("algorithm", ["td", "q"])
def test_symmetric_tables_share_values_between_symmetric_positions(algorithm: str) -> None:
    from tttlab.game import Position

    trainer = Trainer(default_config(algorithm, 20_000, seed=1))
    trainer.run()
    assert trainer.layout.symmetric
    assert trainer.layout.size == 765  # one row per position up to symmetry
    agent = trainer.agent()
    p = Position.from_string("X../.O./...")
    values = agent.move_values(p)
    assert values is not None
    for perm in p.geometry.symmetries:
        image = p.transform(perm)
        mapped = agent.move_values(image)
        assert mapped is not None
        # cell perm[j] of p is cell j of the image
        for j in range(9):
            if perm[j] in values:
                assert mapped[j] == values[perm[j]]


def test_full_and_symmetric_tables_both_learn() -> None:
    for symmetric in (False, True):
        trainer = Trainer(default_config("q", 200_000, seed=0, symmetric=symmetric))
        trainer.run()
        reports = evaluate_seats(trainer.agent(), Geometry())
        assert all(r.worst_case == 0 for r in reports.values())
