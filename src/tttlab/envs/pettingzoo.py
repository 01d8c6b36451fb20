"""A PettingZoo AEC environment for two learners, shaped like PettingZoo's classic games.

Agents are ``player_1`` (X) and ``player_2`` (O). Each observation is a dict with
``observation`` ((rows, cols, 2) int8: own marks, opponent marks) and ``action_mask``
(legal cells for the agent to move, zeros for the other). Rewards: +1 to the winner, −1 to
the loser. :func:`env` wraps the raw environment as the classic games do, so an illegal move
ends the game with −1 for the side that made it.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector, wrappers

from tttlab.envs.rendering import planes, render
from tttlab.game import Geometry, Position

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv[str, Any, Any]:
    """The wrapped environment (illegal moves end the game, actions checked, order enforced)."""
    environment: AECEnv[str, Any, Any] = raw_env(**kwargs)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


class raw_env(AECEnv[str, dict[str, npt.NDArray[np.int8]], np.int64]):  # type: ignore[misc]  # noqa: N801
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "rgb_array"],
        "name": "tttlab_tictactoe_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, board: Geometry | str = "3x3k3", render_mode: str | None = None) -> None:
        super().__init__()
        self.geometry = board if isinstance(board, Geometry) else Geometry.parse(board)
        g = self.geometry
        self.possible_agents = ["player_1", "player_2"]
        self.agents = self.possible_agents[:]
        self.action_spaces = {a: spaces.Discrete(g.cells) for a in self.agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, shape=(g.rows, g.cols, 2), dtype=np.int8),
                    "action_mask": spaces.Box(0, 1, shape=(g.cells,), dtype=np.int8),
                }
            )
            for a in self.agents
        }
        self.render_mode = render_mode
        self.position = Position.initial(g)
        self._selector = AgentSelector(self.agents)
        self.agent_selection = self._selector.reset()
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, npt.NDArray[np.int8]]:
        mine = self.possible_agents.index(agent) + 1
        mask = np.zeros(self.geometry.cells, dtype=np.int8)
        if agent == self.agent_selection:
            mask[list(self.position.legal_moves)] = 1
        return {"observation": planes(self.position, mine), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.position = Position.initial(self.geometry)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._selector.reinit(self.agents)
        self.agent_selection = self._selector.reset()

    def step(self, action: np.int64 | int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.position = self.position.apply(int(action))  # type: ignore[arg-type]
        if self.position.is_terminal:
            winner = self.position.winner
            if winner is not None:
                won = self.possible_agents[int(winner) - 1]
                lost = self.possible_agents[2 - int(winner)]
                self.rewards[won] += 1
                self.rewards[lost] -= 1
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        self.agent_selection = self._selector.next()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        return render(self.position, self.render_mode)

    def close(self) -> None:
        pass
