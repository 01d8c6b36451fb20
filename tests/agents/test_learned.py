"""Agents that act from learned tables (:mod:`tttlab.agents.learned`): greedy over Q values
kept from X's side (X maximises, O minimises, the k tables summed) or over the TD value of
each move's result, ties shared; a symmetric table read through its layout; a seat the
tables were not trained for refused."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import movers_of, open_positions
from tttlab.agents import AgentError
from tttlab.agents.learned import LearnedAgent
from tttlab.game import Geometry, Player, Position, state_space, table_layout

G = Geometry()
SPACE = state_space(G)


def q_agent(
    q: dict[str, dict[int, float]], seats: tuple[Player, ...] = (Player.X, Player.O)
) -> LearnedAgent:
    """A q agent whose two tables add up to ``q`` (board → move → value, X's side), 0 elsewhere."""
    tables = np.zeros((2, SPACE.size, G.cells))
    for board, moves in q.items():
        row = SPACE.index(Position.from_string(board))
        for move, value in moves.items():
            tables[:, row, move] = value / 2
    return LearnedAgent("q", G, seats, {"Q": tables})


def test_x_takes_the_highest_q_value_and_o_the_lowest() -> None:
    agent = q_agent({".........": {4: 1.0, 0: -1.0}, "....X....": {0: -0.5, 1: 0.5}})
    start = Position.initial(G)
    assert agent.move_probabilities(start) == {4: 1.0}
    reply = start.apply(4)
    assert agent.move_probabilities(reply) == {0: 1.0}
    values = agent.move_values(reply)
    assert values is not None
    assert (values[0], values[1], values[2]) == (0.5, -0.5, 0.0)  # from O's side
    assert set(values) == set(reply.legal_moves)
    assert agent.select_move(reply, np.random.default_rng(0)) == 0


def test_ties_are_shared_and_every_way_of_asking_agrees() -> None:
    agent = q_agent({})
    assert agent.move_probabilities(Position.initial(G)) == dict.fromkeys(range(9), 1 / 9)
    rng = np.random.default_rng(7)
    q = rng.integers(-2, 3, size=(1, SPACE.size, G.cells)).astype(np.float64)  # many ties
    agent = LearnedAgent("sarsa", G, (Player.X, Player.O), {"Q": q})
    boards = open_positions(G, 200, seed=3)
    movers = movers_of(boards)
    rows = agent.move_probability_rows(boards, movers)
    tables = {side: agent.policy_matrix(side) for side in (Player.X, Player.O)}
    for board, mover, row in zip(boards, movers, rows, strict=True):
        position = Position(G, tuple(int(c) for c in board))
        expected = np.zeros(G.cells)
        for move, p in agent.move_probabilities(position).items():
            expected[move] = p
        np.testing.assert_allclose(row, expected)
        np.testing.assert_allclose(tables[Player(int(mover))][SPACE.index(position)], expected)
    assert not tables[Player.X][SPACE.decisions(Player.O)].any()  # only X's positions


def test_a_symmetric_table_gives_symmetric_positions_the_same_values() -> None:
    """A move at a position is worth what the move it becomes on the representative is."""
    layout = table_layout(SPACE, True)
    q = np.random.default_rng(0).normal(size=(1, layout.size, G.cells))
    agent = LearnedAgent("double-q", G, (Player.X, Player.O), {"Q": q}, symmetric=True)
    moved = np.flatnonzero((SPACE.symmetry != 0) & ~SPACE.terminal)
    assert moved.size > 0
    for i in moved[:: max(1, moved.size // 60)]:
        position = SPACE.position(int(i))
        c = int(SPACE.canonical[i])
        perm = G.symmetries[int(SPACE.symmetry[i])]
        side = position.to_move
        ours, theirs = agent.action_values(int(i), side), agent.action_values(c, side)
        for a in position.legal_moves:
            after = position.apply(a).transform(perm)
            (b,) = [b for b in SPACE.position(c).legal_moves if SPACE.position(c).apply(b) == after]
            assert ours[a] == theirs[b]


def test_td_moves_to_the_result_its_mover_values_most() -> None:
    v = np.zeros((2, SPACE.size))
    v[0, SPACE.index(Position.from_string("....X...."))] = 0.9  # X's estimate that X wins
    v[1, SPACE.index(Position.from_string("O...X...."))] = 0.2  # O's that O wins
    agent = LearnedAgent("td", G, (Player.X, Player.O), {"V": v})
    start = Position.initial(G)
    assert agent.move_probabilities(start) == {4: 1.0}
    assert agent.move_values(start) == {m: (0.9 if m == 4 else 0.0) for m in range(9)}
    assert agent.move_probabilities(start.apply(4)) == {0: 1.0}


def test_a_seat_it_was_not_trained_for_is_refused() -> None:
    agent = q_agent({}, seats=(Player.X,))
    reply = Position.initial(G).apply(4)
    with pytest.raises(AgentError, match="trained to play X only"):
        agent.move_probabilities(reply)
    with pytest.raises(AgentError, match="trained to play X only"):
        agent.policy_matrix(Player.O)
    with pytest.raises(AgentError, match="trained to play X only"):
        agent.move_probability_rows(np.array([reply.cells]), np.array([2]))
    with pytest.raises(AgentError, match="unknown algorithm 'ppo'"):
        LearnedAgent("ppo", G, (Player.X,), {"Q": np.zeros((1, SPACE.size, 9))})
