"""Round-robin matches between agents, every pair playing both sides."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from tttlab.agents import Agent
from tttlab.game import Geometry, Position

__all__ = ["Pairing", "Standing", "play_game", "round_robin"]


def play_game(x: Agent, o: Agent, geometry: Geometry, rng: np.random.Generator) -> int:
    """Play one game; returns the winner (1 X, 2 O) or 0 for a draw."""
    position = Position.initial(geometry)
    players = {1: x, 2: o}
    while not position.is_terminal:
        agent = players[int(position.to_move)]
        position = position.apply(agent.select_move(position, rng))
    return int(position.winner) if position.winner else 0


@dataclass
class Pairing:
    x: str
    o: str
    x_wins: int = 0
    o_wins: int = 0
    draws: int = 0

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Standing:
    win: int = 0
    draw: int = 0
    loss: int = 0
    by_side: dict[str, list[int]] = field(default_factory=lambda: {"X": [0, 0, 0], "O": [0, 0, 0]})

    @property
    def points(self) -> float:
        return self.win + 0.5 * self.draw


def round_robin(
    agents: Sequence[Agent],
    geometry: Geometry,
    games: int,
    rng: np.random.Generator,
    names: Sequence[str] | None = None,
) -> tuple[list[Pairing], dict[str, Standing]]:
    """Every ordered pair (A as X against B as O, and the reverse) plays ``games`` games."""
    labels = list(names) if names is not None else _unique_names(agents)
    pairings: list[Pairing] = []
    standings = {name: Standing() for name in labels}
    for i, a in enumerate(agents):
        for j, b in enumerate(agents):
            if i == j:
                continue
            pairing = Pairing(labels[i], labels[j])
            for _ in range(games):
                result = play_game(a, b, geometry, rng)
                if result == 1:
                    pairing.x_wins += 1
                elif result == 2:
                    pairing.o_wins += 1
                else:
                    pairing.draws += 1
            pairings.append(pairing)
            _record(standings[labels[i]], "X", pairing.x_wins, pairing.draws, pairing.o_wins)
            _record(standings[labels[j]], "O", pairing.o_wins, pairing.draws, pairing.x_wins)
    return pairings, standings


def _record(standing: Standing, side: str, win: int, draw: int, loss: int) -> None:
    standing.win += win
    standing.draw += draw
    standing.loss += loss
    tally = standing.by_side[side]
    tally[0] += win
    tally[1] += draw
    tally[2] += loss


def _unique_names(agents: Sequence[Agent]) -> list[str]:
    seen: dict[str, int] = {}
    names = []
    for agent in agents:
        base = agent.name
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return names
