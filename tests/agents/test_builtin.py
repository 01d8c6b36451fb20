"""Built-in agents: legal moves always, perfect never loses, seeded choices repeat."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings

from tests.conftest import games
from tttlab.agents import (
    Agent,
    AgentError,
    MinimaxAgent,
    PerfectAgent,
    RandomAgent,
    make_agent,
)
from tttlab.game import Geometry, Player, Position, StateSpace, state_space
from tttlab.solvers import Solution


def test_protocol() -> None:
    for name in ("random", "perfect", "minimax"):
        assert isinstance(make_agent(name, Geometry()), Agent)
    with pytest.raises(AgentError, match="unknown agent"):
        make_agent("nobody", Geometry())


@settings(max_examples=60, deadline=None)
@given(games(Geometry(3, 3, 3)))
def test_agents_pick_legal_moves(game: tuple[Geometry, list[Position]]) -> None:
    g, played = game
    rng = np.random.default_rng(0)
    agents = [RandomAgent(g), PerfectAgent(g), MinimaxAgent(g)]
    for p in played:
        if p.is_terminal:
            continue
        for agent in agents:
            assert agent.select_move(p, rng) in p.legal_moves
            probs = agent.move_probabilities(p)
            assert set(probs) <= set(p.legal_moves)
            assert sum(probs.values()) == pytest.approx(1.0)


@settings(max_examples=20, deadline=None)
@given(games(Geometry(5, 5, 4)))
def test_minimax_legal_on_big_board(game: tuple[Geometry, list[Position]]) -> None:
    g, played = game
    p = played[-1]
    if not p.is_terminal:
        agent = MinimaxAgent(g, depth=1)
        assert agent.select_move(p, np.random.default_rng(0)) in p.legal_moves


def test_perfect_moves_are_optimal(space3: StateSpace, solution3: Solution) -> None:
    agent = PerfectAgent(space3.geometry)
    for i in np.flatnonzero(~space3.terminal):
        p = space3.position(int(i))
        for move in agent.move_probabilities(p):
            child = int(space3.next[i, move])
            assert solution3.value[child] == solution3.value[i]


def test_minimax_plays_exactly_the_perfect_moves(space3: StateSpace) -> None:
    perfect, minimax = PerfectAgent(space3.geometry), MinimaxAgent(space3.geometry)
    for i in np.flatnonzero(~space3.terminal):
        p = space3.position(int(i))
        assert minimax.move_probabilities(p) == perfect.move_probabilities(p)


def _exact_result(
    agent: Agent, side: Player, p: Position, memo: dict[int, dict[str, Fraction]] | None = None
) -> dict[str, Fraction]:
    """Exact W/D/L of ``agent`` on ``side`` against uniform random, by recursion over the
    game graph (each position's result computed once, as the games through it share it)."""
    memo = {} if memo is None else memo
    if p.id in memo:
        return memo[p.id]
    if p.is_terminal:
        key = "draw" if p.winner is None else ("win" if p.winner is side else "loss")
        return {"win": Fraction(0), "draw": Fraction(0), "loss": Fraction(0)} | {key: Fraction(1)}
    if p.to_move is side:
        dist = {
            m: Fraction(pr).limit_denominator(1000) for m, pr in agent.move_probabilities(p).items()
        }
    else:
        dist = {m: Fraction(1, len(p.legal_moves)) for m in p.legal_moves}
    total = {"win": Fraction(0), "draw": Fraction(0), "loss": Fraction(0)}
    for m, pr in dist.items():
        for k, v in _exact_result(agent, side, p.apply(m), memo).items():
            total[k] += pr * v
    memo[p.id] = total
    return total


def test_perfect_never_loses_to_random() -> None:
    agent = PerfectAgent(Geometry())
    for side in Player:
        assert _exact_result(agent, side, Position.initial())["loss"] == 0


def test_seeded_choices_repeat() -> None:
    agent = RandomAgent(Geometry())
    p = Position.initial()
    a = [agent.select_move(p, np.random.default_rng(3)) for _ in range(5)]
    assert len(set(a)) == 1
    rng = np.random.default_rng(3)
    seq1 = [agent.select_move(p, rng) for _ in range(20)]
    rng = np.random.default_rng(3)
    assert seq1 == [agent.select_move(p, rng) for _ in range(20)]


def test_values_for_display() -> None:
    p = Position.from_string("XX./OO./...")
    perfect = PerfectAgent(Geometry()).move_values(p)
    assert perfect is not None
    assert perfect[2] == 1.0  # X wins at once
    assert perfect[6] == -1.0  # X lets O complete the middle row
    minimax = MinimaxAgent(Geometry()).move_values(p)
    assert minimax == perfect
    assert RandomAgent(Geometry()).move_values(p) is None


def test_agents_refuse_finished_or_foreign_positions() -> None:
    done = Position.from_string("XXX/OO./...")
    for agent in (RandomAgent(Geometry()), PerfectAgent(Geometry()), MinimaxAgent(Geometry())):
        with pytest.raises(ValueError, match="over"):
            agent.move_probabilities(done)
        with pytest.raises(ValueError, match="agent plays"):
            agent.move_probabilities(Position.initial(Geometry(3, 4, 3)))


def test_minimax_default_depth_by_board_size() -> None:
    assert MinimaxAgent(Geometry()).depth is None
    assert MinimaxAgent(Geometry(4, 4, 4)).depth == MinimaxAgent.DEFAULT_DEPTH
    agent = MinimaxAgent(Geometry(4, 4, 4))
    agent.select_move(Position.initial(Geometry(4, 4, 4)), np.random.default_rng(0))
    assert agent.last is not None
    assert agent.last.nodes > 0


@pytest.mark.parametrize("board", ["3x3k3", "3x4k3"])
def test_perfect_policy_matrix_is_its_move_probabilities(board: str) -> None:
    geometry = Geometry.parse(board)
    agent = PerfectAgent(geometry)
    space = state_space(geometry)
    for side in Player:
        table = agent.policy_matrix(side)
        rows = np.flatnonzero(~space.terminal & (space.to_move == int(side)))
        assert (table[np.setdiff1d(np.arange(space.size), rows)] == 0).all()
        for i in np.random.default_rng(0).choice(rows, size=300, replace=False):
            expected = np.zeros(geometry.cells)
            for move, p in agent.move_probabilities(space.position(int(i))).items():
                expected[move] = p
            assert np.array_equal(table[i], expected)
