"""A Gymnasium environment: one seat against a fixed tttlab agent.

>>> import gymnasium as gym, tttlab.envs
>>> env = gym.make("tttlab/TicTacToe-v0", opponent="perfect")
>>> obs, info = env.reset(seed=0)
>>> obs.shape, info["action_mask"].tolist()
((3, 3, 2), [1, 1, 1, 1, 1, 1, 1, 1, 1])
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from tttlab.agents import Agent
from tttlab.envs.rendering import planes, render
from tttlab.game import Geometry, Player, Position
from tttlab.io import resolve_agent

__all__ = ["TicTacToeEnv"]

Obs = npt.NDArray[np.int8]


class TicTacToeEnv(gym.Env[Obs, np.int64]):
    """Play one seat of an m,n,k game against a fixed opponent.

    Args:
        board: a geometry or its name (``"3x3k3"``, ``"4x4k4"``).
        seat: ``"X"`` (moves first) or ``"O"``; when O, the opponent's first move is part
            of ``reset``.
        opponent: an agent name (``random``, ``perfect``, ``minimax``), an agent file, or
            an agent object. Its random choices use the environment's ``np_random``.
        render_mode: ``"ansi"`` (text) or ``"rgb_array"``.
        illegal_reward: the reward for an illegal action, which also ends the episode.

    Observation: ``(rows, cols, 2)`` int8 planes, [own marks, opponent marks].
    Action: ``Discrete(rows * cols)``, a row-major cell. ``info["action_mask"]`` marks the
    legal cells. Rewards: +1 win, −1 loss, 0 draw or game still on.

    Examples:
        >>> env = TicTacToeEnv(seat="X", opponent="perfect")
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape, int(info["action_mask"].sum())
        ((3, 3, 2), 9)
        >>> observation, reward, terminated, truncated, info = env.step(4)
        >>> int(observation[..., 0].sum()), int(observation[..., 1].sum()), terminated
        (1, 1, False)
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012 - Gymnasium declares it

    def __init__(
        self,
        board: Geometry | str = "3x3k3",
        seat: str = "X",
        opponent: str | Agent = "random",
        render_mode: str | None = None,
        illegal_reward: float = -1.0,
    ) -> None:
        self.geometry = board if isinstance(board, Geometry) else Geometry.parse(board)
        self.seat = Player.parse(seat)
        self.opponent: Agent = (
            resolve_agent(opponent, self.geometry) if isinstance(opponent, str) else opponent
        )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.illegal_reward = float(illegal_reward)
        g = self.geometry
        self.observation_space = spaces.Box(0, 1, shape=(g.rows, g.cols, 2), dtype=np.int8)
        self.action_space = spaces.Discrete(g.cells)
        self.position = Position.initial(g)
        self._done = True

    def _observation(self) -> Obs:
        return planes(self.position, int(self.seat))

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal cells now, as sb3-contrib's ``MaskablePPO`` asks an environment for
        them (the same as ``info["action_mask"]``)."""
        mask = np.zeros(self.geometry.cells, dtype=np.bool_)
        if not self.position.is_terminal:
            mask[list(self.position.legal_moves)] = True
        return mask

    def _info(self, **extra: Any) -> dict[str, Any]:
        mask = self.action_masks().astype(np.int8)
        return {"action_mask": mask, "position": self.position.to_string(), **extra}

    def _opponent_moves(self) -> None:
        move = self.opponent.select_move(self.position, self.np_random)
        self.position = self.position.apply(move)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        self.position = Position.initial(self.geometry)
        if self.seat is Player.O:
            self._opponent_moves()
        self._done = False
        return self._observation(), self._info()

    def step(self, action: np.int64 | int) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        move = int(action)
        if not self.position.is_legal(move):
            self._done = True
            return (
                self._observation(),
                self.illegal_reward,
                True,
                False,
                self._info(illegal_move=True),
            )
        self.position = self.position.apply(move)
        if not self.position.is_terminal:
            self._opponent_moves()
        reward = 0.0
        if self.position.is_terminal:
            self._done = True
            winner = self.position.winner
            reward = 0.0 if winner is None else (1.0 if winner is self.seat else -1.0)
        return self._observation(), reward, self._done, False, self._info()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        return render(self.position, self.render_mode)
