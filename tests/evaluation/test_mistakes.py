"""The list of mistakes is exactly what the optimal share counts against an agent."""

from __future__ import annotations

import pytest

from tttlab.agents import make_agent
from tttlab.evaluation import evaluate_seats, mistakes
from tttlab.game import DEFAULT, Geometry, Player, Position
from tttlab.learners import Trainer, default_config
from tttlab.solvers import solve_table


@pytest.mark.parametrize("board", ["3x3k3", "3x4k3"])
@pytest.mark.parametrize("side", [Player.X, Player.O])
def test_mistakes_are_what_the_optimal_share_counts(board: str, side: Player) -> None:
    geometry = Geometry.parse(board)
    trainer = Trainer(default_config("q", 500, seed=1, geometry=geometry))
    trainer.run()
    agent = trainer.agent()
    report = evaluate_seats(agent, geometry, (side,))[side.name]
    found = mistakes(agent, geometry, side, limit=10**9)
    assert len(found) == round(report.decision_positions * (1 - report.optimal_share))
    assert len(found) > 0
    solution = solve_table(geometry)
    reach = [m.reach for m in found]
    assert reach == sorted(reach, reverse=True)
    for m in found[:50]:
        position = Position.from_string(m.position, geometry)
        assert position.to_move is side
        assert m.wrong, "every listed position has a move that loses value"
        assert set(m.wrong) <= set(m.moves)
        assert set(m.wrong).isdisjoint(m.right)
        assert all(m.values[w] < m.value for w in m.wrong)
        assert all(m.values[r] == m.value for r in m.right)
        # The values are perfect play's, seen from the mover.
        sign = 1 if side is Player.X else -1
        for move, value in m.values.items():
            child = solution.space.index(position.apply(move))
            assert value == sign * int(solution.value[child])
        probabilities = agent.move_probabilities(position)
        assert set(m.moves) == {k for k, p in probabilities.items() if p > 0}


def test_perfect_play_makes_no_mistakes() -> None:
    for side in (Player.X, Player.O):
        assert mistakes(make_agent("perfect", DEFAULT), DEFAULT, side) == []


def test_limit_keeps_the_most_likely() -> None:
    agent = make_agent("random", DEFAULT)
    everything = mistakes(agent, DEFAULT, Player.X, limit=10**9)
    assert mistakes(agent, DEFAULT, Player.X, limit=5) == everything[:5]
