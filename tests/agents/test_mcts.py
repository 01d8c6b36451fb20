"""MCTS: legal moves on every board, seeded determinism, strength on 3x3."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from tests.conftest import games
from tttlab.agents import AgentError, MCTSAgent, make_agent
from tttlab.evaluation import evaluate_seats
from tttlab.game import Geometry, Position


@settings(max_examples=40, deadline=None)
@given(games())
def test_never_picks_an_illegal_move(game: tuple[Geometry, list[Position]]) -> None:
    g, played = game
    agent = MCTSAgent(g, simulations=50)
    rng = np.random.default_rng(0)
    for p in played:
        if not p.is_terminal:
            assert agent.select_move(p, rng) in p.legal_moves
            assert set(agent.move_probabilities(p)) <= set(p.legal_moves)


def test_takes_a_win_and_blocks_a_loss() -> None:
    agent = MCTSAgent(Geometry(), simulations=300)
    assert agent.move_probabilities(Position.from_string("XX./OO./...")) == {2: 1.0}
    assert agent.move_probabilities(Position.from_string("XX./.O./...")) == {2: 1.0}


def test_seeded_and_deterministic() -> None:
    p = Position.initial(Geometry(4, 4, 4))
    a, b = MCTSAgent(p.geometry, 200, seed=3), MCTSAgent(p.geometry, 200, seed=3)
    assert a.move_probabilities(p) == b.move_probabilities(p)
    counts1 = a.visit_counts(p, np.random.default_rng(5))
    counts2 = b.visit_counts(p, np.random.default_rng(5))
    assert np.array_equal(counts1, counts2)
    assert counts1.sum() == 200


def test_unbeatable_on_3x3_with_1000_simulations() -> None:
    reports = evaluate_seats(make_agent("mcts:1000", Geometry()), Geometry())
    for seat, report in reports.items():
        assert report.worst_case == 0, seat
        assert report.loss == 0, seat


def test_names_and_errors() -> None:
    assert make_agent("mcts:500:0.5", Geometry()).name == "mcts(500)"
    with pytest.raises(AgentError, match="bad agent"):
        make_agent("mcts:lots", Geometry())
    with pytest.raises(AgentError, match="bad agent"):
        make_agent("mcts:0", Geometry())
    with pytest.raises(AgentError, match="unknown agent"):
        make_agent("mcts:1:2:3", Geometry())


def test_in_the_gym_environment_and_arena() -> None:
    from gymnasium.utils.env_checker import check_env

    from tttlab.envs import TicTacToeEnv
    from tttlab.evaluation import round_robin

    check_env(TicTacToeEnv(board="4x4k4", opponent="mcts:100"))
    _, standings = round_robin(
        [make_agent("mcts:300", Geometry()), make_agent("random", Geometry())],
        Geometry(),
        10,
        np.random.default_rng(0),
    )
    assert standings["mcts(300)"].loss == 0
