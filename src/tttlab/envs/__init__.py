"""Gymnasium and PettingZoo adapters (the optional ``envs`` extra).

Importing this package registers ``tttlab/TicTacToe-v0`` with Gymnasium.
"""

from gymnasium.envs.registration import register, registry

from tttlab.envs.gym_env import TicTacToeEnv

__all__ = ["TicTacToeEnv"]

if "tttlab/TicTacToe-v0" not in registry:
    register(id="tttlab/TicTacToe-v0", entry_point="tttlab.envs.gym_env:TicTacToeEnv")
