"""The PettingZoo adapter passes PettingZoo's own checkers, on several boards."""

from __future__ import annotations

import warnings

import pytest
from pettingzoo.test import api_test, seed_test

from tttlab.envs import pettingzoo as pz


@pytest.mark.parametrize("board", ["3x3k3", "3x4k3", "4x4k4"])
def test_pettingzoo_api_test(board: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's notes on dict observations
        api_test(pz.env(board=board), num_cycles=200)


def test_pettingzoo_seed_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(pz.env, num_cycles=100)


def test_pettingzoo_illegal_move_ends_the_game() -> None:
    env = pz.env()
    env.reset(seed=0)
    env.step(4)
    env.step(4)  # O plays the occupied centre
    rewards = {a: env.rewards[a] for a in env.possible_agents}
    assert rewards["player_2"] == -1
    assert all(env.terminations.values())


def test_pettingzoo_winner_gets_plus_one() -> None:
    env = pz.env()
    env.reset(seed=0)
    for move in (0, 3, 1, 4, 2):
        env.step(move)
    assert env.rewards == {"player_1": 1, "player_2": -1}
