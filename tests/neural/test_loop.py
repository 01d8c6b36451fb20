"""What the network learners share (:mod:`tttlab.neural.loop`): the negamax sweep back over
plies, by hand, and the replay that keeps only the rows it is told to."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from tttlab.neural.loop import Replay, negamax_backward


def test_value_targets_by_hand() -> None:
    """The result of the game from the side that moved at each ply, for four games written
    out by hand (plies down, games across): X wins at ply 4, a draw, O wins at ply 5, and X
    plays an illegal move at ply 2 (reward −1, the game ends)."""
    reward = np.zeros((9, 4), np.float32)
    done = np.zeros((9, 4), bool)
    reward[4, 0], done[4:, 0] = 1.0, True
    done[8, 1] = True
    reward[5, 2], done[5:, 2] = 1.0, True
    reward[2, 3], done[2:, 3] = -1.0, True
    z = np.asarray(negamax_backward(jnp.asarray(reward), jnp.asarray(done)))
    x_wins = [1, -1, 1, -1, 1, 0, 0, 0, 0]  # X moved at even plies
    o_wins = [-1, 1, -1, 1, -1, 1, 0, 0, 0]
    illegal = [-1, 1, -1, 0, 0, 0, 0, 0, 0]
    np.testing.assert_array_equal(z.T, np.array([x_wins, [0] * 9, o_wins, illegal], np.float32))


def test_the_replay_keeps_only_what_it_is_told_to() -> None:
    """Rows written with ``keep`` False are never picked, also when the ring wraps round."""
    replay = Replay.empty(jnp.zeros(10, jnp.int32))
    for start in (1, 101, 201):  # 4 rows per write, the odd ones kept: 2 per write
        rows = jnp.arange(start, start + 4, dtype=jnp.int32)
        replay = replay.write_kept(rows, rows % 2 == 1)
    assert int(replay.cursor) == 6
    assert int(replay.filled) == 6  # at most capacity − rows written at once
    picked = set(np.asarray(replay.pick_recent(jax.random.PRNGKey(0), 200)).tolist())
    assert picked == {1, 3, 101, 103, 201, 203}
    replay = replay.write_kept(jnp.arange(301, 305, dtype=jnp.int32), jnp.array([0, 1, 0, 1]) == 1)
    assert int(replay.cursor) == 8
    picked = set(np.asarray(replay.pick_recent(jax.random.PRNGKey(1), 200)).tolist())
    assert picked == {101, 103, 201, 203, 302, 304}
