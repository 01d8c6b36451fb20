"""The Gymnasium adapter passes Gymnasium's own checker, on several boards (the PettingZoo
adapter: tests/envs/test_pettingzoo.py)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tttlab.envs
from tttlab.envs import TicTacToeEnv


@pytest.mark.parametrize("seat", ["X", "O"])
@pytest.mark.parametrize("opponent", ["random", "perfect"])
@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_gymnasium_check_env(seat: str, opponent: str, render_mode: str) -> None:
    env = gym.make("tttlab/TicTacToe-v0", seat=seat, opponent=opponent, render_mode=render_mode)
    check_env(env.unwrapped)


def test_gymnasium_bigger_board_and_minimax() -> None:
    check_env(TicTacToeEnv(board="4x4k4", opponent="minimax", render_mode="rgb_array"))


def test_illegal_action_ends_the_episode_with_minus_one() -> None:
    env = TicTacToeEnv(opponent="random")
    env.reset(seed=1)
    _, _, _, _, info = env.step(4)
    occupied = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, done, truncated, info = env.step(occupied)
    assert (reward, done, truncated) == (-1.0, True, False)
    assert info["illegal_move"] is True
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_observation_planes_are_own_then_opponent() -> None:
    env = TicTacToeEnv(seat="O", opponent="perfect")
    obs, info = env.reset(seed=0)
    assert obs[:, :, 1].sum() == 1  # the opponent (X) has moved
    assert obs[:, :, 0].sum() == 0
    assert info["action_mask"].sum() == 8


def test_perfect_opponent_is_never_beaten_by_random_play() -> None:
    env = TicTacToeEnv(opponent="perfect")
    rng = np.random.default_rng(0)
    for episode in range(30):
        _, info = env.reset(seed=episode)
        done, reward = False, 0.0
        while not done:
            # sb3-contrib's MaskablePPO reads the mask from action_masks()
            assert env.action_masks().tolist() == info["action_mask"].astype(bool).tolist()
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, reward, done, _, info = env.step(action)
        assert not env.action_masks().any()
        assert reward <= 0


def test_rendering() -> None:
    env = TicTacToeEnv(render_mode="rgb_array")
    env.reset(seed=0)
    env.step(4)
    image = env.render()
    assert isinstance(image, np.ndarray)
    assert image.shape == (192, 192, 3)
    assert image.dtype == np.uint8
    text = TicTacToeEnv(render_mode="ansi")
    text.reset(seed=0)
    assert "|" in str(text.render())
    assert tttlab.envs.TicTacToeEnv is TicTacToeEnv
