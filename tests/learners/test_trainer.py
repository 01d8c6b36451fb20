"""The trainer: initial tables, determinism whatever the batches, its configuration's checks
and training quality (the update rules on hand-computed episodes:
tests/learners/test_kernels.py; schedules: tests/test_schedules.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tttlab.errors import ConfigError
from tttlab.evaluation import evaluate_seats
from tttlab.game import Geometry, Player
from tttlab.learners import TrainConfig, Trainer, default_config
from tttlab.schedules import Schedule


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
