"""Exact evaluation against the known limits, and against brute force over the game tree."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import tttlab
from tttlab.agents import Agent, MinimaxAgent, PerfectAgent, RandomAgent
from tttlab.agents.base import ASKED_ONE_BY_ONE, check_playable
from tttlab.errors import AgentError
from tttlab.evaluation import (
    TableProgress,
    evaluate_policy,
    evaluate_seats,
    prove_worst_case,
)
from tttlab.game import Geometry, Player, Position
from tttlab.solvers import Solution

Outcomes = tuple[Fraction, Fraction, Fraction]


def _tree(
    agent: Agent, side: Player, p: Position, seen: dict[Position, Outcomes] | None = None
) -> Outcomes:
    """(win, draw, loss) by recursion over every game, with exact fractions: the same
    recurrence as a walk of every game, each position's outcomes worked out once (``seen``)
    where the game reaches it again by another order of moves."""
    seen = {} if seen is None else seen
    if p not in seen:
        seen[p] = _outcomes(agent, side, p, seen)
    return seen[p]


def _outcomes(agent: Agent, side: Player, p: Position, seen: dict[Position, Outcomes]) -> Outcomes:
    if p.is_terminal:
        if p.winner is None:
            return Fraction(0), Fraction(1), Fraction(0)
        return (
            (Fraction(1), Fraction(0), Fraction(0))
            if p.winner is side
            else (Fraction(0), Fraction(0), Fraction(1))
        )
    if p.to_move is side:
        probs = agent.move_probabilities(p)
        dist = {m: Fraction(1, len(probs)) for m in probs}
    else:
        dist = {m: Fraction(1, len(p.legal_moves)) for m in p.legal_moves}
    w = d = lo = Fraction(0)
    for m, pr in dist.items():
        a, b, c = _tree(agent, side, p.apply(m), seen)
        w, d, lo = w + pr * a, d + pr * b, lo + pr * c
    return w, d, lo


def test_random_against_random_matches_facts() -> None:
    report = evaluate_seats(RandomAgent(Geometry()), Geometry())
    assert report["X"].win == pytest.approx(737 / 1260, abs=1e-12)
    assert report["X"].loss == pytest.approx(121 / 420, abs=1e-12)
    assert report["X"].draw == pytest.approx(8 / 63, abs=1e-12)
    assert report["X"].worst_case == -1


@pytest.mark.parametrize("side", list(Player))
def test_perfect_agrees_with_tree_recursion(side: Player) -> None:
    agent = PerfectAgent(Geometry())
    report = evaluate_seats(agent, Geometry(), (side,))[side.name]
    win, draw, loss = _tree(agent, side, Position.initial())
    assert report.win == pytest.approx(float(win), abs=1e-12)
    assert report.draw == pytest.approx(float(draw), abs=1e-12)
    assert loss == 0
    assert report.loss == 0
    assert report.worst_case == 0
    assert report.optimal_share == 1.0


def test_perfect_is_below_the_limits_against_random() -> None:
    report = evaluate_seats(PerfectAgent(Geometry()), Geometry())
    assert report["X"].win <= 191 / 192
    assert report["O"].win - report["O"].loss <= 874 / 945


def test_worst_case_breaks_ties_against_the_agent(solution3: Solution) -> None:
    space = solution3.space
    # Plays the solver's optimal moves everywhere, except that at one O position it
    # also allows a losing move: the worst case must find it.
    policy = np.where(solution3.optimal, 1.0, 0.0)
    p = Position.from_string("XX./.O./...")
    i = space.index(p)
    policy[i, 6] = 1.0  # not blocking the top row
    policy /= np.maximum(policy.sum(axis=1, keepdims=True), 1)
    report = evaluate_policy(policy, Player.O, solution3)
    assert report.worst_case == -1
    assert report.optimal_share < 1.0


def test_minimax_equals_perfect() -> None:
    a = evaluate_seats(PerfectAgent(Geometry()), Geometry())
    b = evaluate_seats(MinimaxAgent(Geometry()), Geometry())
    assert a == b


def _decisions(side: Player) -> int:
    """Positions of 3×3 where ``side`` moves and the game goes on, by walking the tree."""
    seen: set[tuple[int, ...]] = set()
    stack = [Position.initial(Geometry())]
    while stack:
        p = stack.pop()
        if p.cells in seen or p.is_terminal:
            continue
        seen.add(p.cells)
        stack.extend(p.apply(m) for m in p.legal_moves)
    return sum(Position(Geometry(), cells).to_move is side for cells in seen)


class _FirstFree:
    """An agent asked position by position (no table, no batch)."""

    name = "first-free"
    deterministic = True

    def move_probabilities(self, position: Position) -> dict[int, float]:
        return {position.legal_moves[0]: 1.0}

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        return position.legal_moves[0]

    def move_values(self, position: Position) -> None:
        return None


class _Batched(_FirstFree):
    """An agent that answers a batch of boards at once, and has no table."""

    name = "batched"

    def move_probability_rows(self, boards: np.ndarray, movers: np.ndarray) -> np.ndarray:
        first = np.argmax(np.asarray(boards) == 0, axis=1)
        return np.eye(boards.shape[1])[first]


@pytest.mark.parametrize("agent", [PerfectAgent(Geometry()), _FirstFree(), _Batched()])
def test_progress_counts_every_position_of_each_seat(agent: Agent) -> None:
    steps: list[TableProgress] = []
    quiet = evaluate_seats(agent, Geometry())
    reports = evaluate_seats(agent, Geometry(), progress=steps.append)
    assert reports == quiet
    if isinstance(agent, _FirstFree):  # both ask the same moves, one by one or at once
        assert reports == evaluate_seats(_FirstFree(), Geometry())
    assert [s.side for s in steps] == sorted((s.side for s in steps), key=int)
    for side in (Player.X, Player.O):
        mine = [s for s in steps if s.side is side]
        assert {s.positions for s in mine} == {_decisions(side)}
        answered = [s.answered for s in mine]
        assert answered == sorted(set(answered))
        assert answered[-1] == mine[-1].positions
        assert [s.seconds for s in mine] == sorted(s.seconds for s in mine)
    # asked one by one, it is told at least every ASKED_ONE_BY_ONE positions
    if type(agent) is _FirstFree:
        gaps = np.diff([0] + [s.answered for s in steps if s.side is Player.X])
        assert len(gaps) > 1
        assert gaps.max() <= ASKED_ONE_BY_ONE


def test_the_api_tells_the_table_evaluations_progress() -> None:
    seen: list[TableProgress] = []
    evaluation = tttlab.evaluate("perfect", on_progress=seen.append)
    assert evaluation.unbeatable
    assert [(s.side, s.answered) for s in seen] == [
        (Player.X, _decisions(Player.X)),
        (Player.O, _decisions(Player.O)),
    ]


def test_an_agent_of_another_board_refuses_in_its_own_words() -> None:
    class Other(_Batched):
        """A batched agent of 3×4 k=3, whose batches would take a 3×3 board's rows."""

        geometry = Geometry.parse("3x4k3")

        def move_probabilities(self, position: Position) -> dict[int, float]:
            check_playable(self.geometry, position)
            return super().move_probabilities(position)

    with pytest.raises(AgentError, match="plays 3x4k3, position is 3x3k3"):
        evaluate_seats(Other(), Geometry())
    with pytest.raises(AgentError, match="plays 3x4k3, position is 3x3k3"):  # both judges
        prove_worst_case(Other(), Geometry(), Player.X)
