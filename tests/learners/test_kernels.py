"""The update rules (``tttlab.learners.kernels``) on hand-computed episodes.

The hand-made episodes use the 2×2 board with k = 2: any two marks of one side are a line,
so every game is X, O, X and X wins on the third ply, whatever the moves.
"""

from __future__ import annotations

import numpy as np
import pytest

from tttlab.game import Geometry
from tttlab.learners import TrainConfig, Trainer
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
