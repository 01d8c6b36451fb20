"""The proof of an agent's worst case without a table, checked against the table's judging
on every board that has one, for built-in, table and network agents."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import numpy as np
import pytest

import tttlab
from tttlab.agents import Agent, make_agent
from tttlab.agents.base import probability_rows
from tttlab.agents.learned import LearnedAgent
from tttlab.agents.network import Architecture, NetworkAgent
from tttlab.errors import AgentError, TttlabError
from tttlab.evaluation import (
    ProofProgress,
    ProofTooLarge,
    evaluate_seats,
    prove_worst_case,
    unprovable_reason,
)
from tttlab.game import Geometry, Player, Position, state_space, table_layout

BOARDS = [Geometry(3, 3, 3), Geometry(3, 4, 3)]


def _table_agent(geometry: Geometry, seed: int) -> LearnedAgent:
    """A Q table of small integers: deterministic, with many ties to follow."""
    rows = table_layout(state_space(geometry), symmetric=False).size
    q = np.random.default_rng(seed).integers(-1, 2, size=(1, rows, geometry.cells))
    return LearnedAgent("q", geometry, (Player.X, Player.O), {"Q": q.astype(np.float64)})


def _network(geometry: Geometry, head: str, seed: int, simulations: int = 0) -> NetworkAgent:
    """An untrained network: deterministic, and a different player for every seed."""
    architecture = Architecture(geometry.cells, (16,), head)
    rng = np.random.default_rng(seed)
    params = {
        name: rng.normal(size=shape).astype(np.float32)
        for name, shape in architecture.shapes().items()
    }
    algorithm = "alphazero" if head == "policy-value" else "dqn"
    agent = NetworkAgent(algorithm, geometry, architecture, params)
    return agent.with_search(simulations) if simulations else agent


def _agents(geometry: Geometry) -> list[Agent]:
    builtin = ["perfect"]
    if geometry.cells <= 9:  # minimax is judged position by position: seconds on 3×4
        builtin += ["random", "minimax:1", "minimax:2"]
    return [
        *(make_agent(name, geometry) for name in builtin),
        _table_agent(geometry, 0),
        _network(geometry, "q", 1),
        _network(geometry, "policy-value", 2),
    ]


@pytest.mark.parametrize("geometry", BOARDS, ids=lambda g: g.name)
def test_the_proof_equals_the_table_on_every_seat(geometry: Geometry) -> None:
    """Worst case, results against random and the decisions reached: the same figures from
    the proof as from the whole table, seat by seat."""
    for agent in _agents(geometry):
        table = evaluate_seats(agent, geometry)
        for side in (Player.X, Player.O):
            proof = prove_worst_case(agent, geometry, side)
            judged = table[side.name]
            where = f"{agent.name} as {side.name} on {geometry.name}"
            assert proof.worst_case == judged.worst_case, where
            assert proof.decision_positions == judged.decision_positions, where
            assert proof.complete, where
            assert proof.win == pytest.approx(judged.win, abs=1e-12), where
            assert proof.loss == pytest.approx(judged.loss, abs=1e-12), where
            assert proof.draw == pytest.approx(judged.draw, abs=1e-12), where
            assert (proof.line is None) == (judged.worst_case >= 0), where
            if proof.line is not None:
                _assert_losing_line(agent, geometry, side, proof.line)


def test_a_network_with_search_at_play_time() -> None:
    agent = _network(Geometry(), "policy-value", 3, simulations=4)
    table = evaluate_seats(agent, Geometry())
    for side in (Player.X, Player.O):
        proof = prove_worst_case(agent, Geometry(), side)
        assert proof.worst_case == table[side.name].worst_case
        assert proof.loss == pytest.approx(table[side.name].loss, abs=1e-12)


def _assert_losing_line(agent: Agent, geometry: Geometry, side: Player, line: tuple[int, ...]):
    """The line is legal, each of the agent's moves is one it may play, and the opponent
    wins with the last move."""
    position = Position.initial(geometry)
    for move in line:
        assert not position.is_terminal
        if position.to_move == side:
            assert move in agent.move_probabilities(position)
        position = position.apply(move)
    assert position.winner == side.other


def _first_loss_ply(agent: Agent, geometry: Geometry, side: Player) -> int | None:
    """The fewest plies in which the agent can be beaten, by a plain depth-first search."""
    best: list[int] = []

    def walk(position: Position, ply: int) -> None:
        if position.is_terminal:
            if position.winner == side.other:
                best.append(ply)
            return
        if best and ply >= min(best):
            return
        moves: Mapping[int, float] | tuple[int, ...] = (
            agent.move_probabilities(position) if position.to_move == side else position.legal_moves
        )
        for move in moves:
            walk(position.apply(move), ply + 1)

    walk(Position.initial(geometry), 0)
    return min(best) if best else None


@pytest.mark.parametrize("name", ["minimax:1", "table"])
def test_the_losing_line_is_a_shortest_one(name: str) -> None:
    agent = _table_agent(Geometry(), 1) if name == "table" else make_agent(name, Geometry())
    for side in (Player.X, Player.O):
        proof = prove_worst_case(agent, Geometry(), side)
        shortest = _first_loss_ply(agent, Geometry(), side)
        assert (None if proof.line is None else len(proof.line)) == shortest


def test_limits_and_refusals() -> None:
    perfect = make_agent("perfect", Geometry())
    with pytest.raises(ProofTooLarge, match="without finding a loss"):
        prove_worst_case(perfect, Geometry(), Player.X, limit=50)
    random = make_agent("random", Geometry())
    stopped = prove_worst_case(random, Geometry(), Player.X, after_loss=50)
    assert stopped.worst_case == -1
    assert not stopped.complete
    assert stopped.win is None
    assert stopped.as_json()["vs_random"] is None
    mcts = make_agent("mcts:10", Geometry())
    reason = unprovable_reason(mcts)
    assert reason is not None
    assert "\n" not in reason
    with pytest.raises(AgentError, match=r"mcts.10. is not deterministic"):
        prove_worst_case(mcts, Geometry(), Player.X)
    assert unprovable_reason(perfect) is None


class _Clock:
    """A stand-in for the walk's clock: time passes only when the agent, asked about a
    board with ``slow_at`` stones, thinks for ``thinking`` seconds."""

    def __init__(self, slow_at: int, thinking: float) -> None:
        self.now, self.slow_at, self.thinking = 0.0, slow_at, thinking

    def perf_counter(self) -> float:
        return self.now

    def rows(self, agent: Agent) -> Callable[[np.ndarray, int], np.ndarray]:
        def ask(boards: np.ndarray, mover: int) -> np.ndarray:
            if (boards[0] != 0).sum() == self.slow_at:
                self.now += self.thinking
            return probability_rows(agent, Geometry(), boards)

        return ask


def test_a_time_budget_never_gives_a_verdict_it_has_not_walked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tttlab.evaluation.worstcase as worstcase

    perfect = make_agent("perfect", Geometry())
    # No loss anywhere: out of time at ply 3 is no verdict, where the whole walk proves a draw.
    clock = _Clock(slow_at=3, thinking=10.0)
    monkeypatch.setattr(worstcase, "time", clock)
    with pytest.raises(ProofTooLarge, match=r"ran out of time after [0-9,]+ positions"):
        prove_worst_case(perfect, Geometry(), Player.O, rows=clock.rows(perfect), seconds=5.0)
    clock = _Clock(slow_at=3, thinking=1.0)  # within the budget: the proof as without one
    monkeypatch.setattr(worstcase, "time", clock)
    within = prove_worst_case(perfect, Geometry(), Player.O, rows=clock.rows(perfect), seconds=5.0)
    assert (within.worst_case, within.positions, within.complete) == (0, 1914, True)

    # A loss found before the time ran out is proved; the walk stops there, as after_loss.
    minimax = make_agent("minimax:1", Geometry())
    whole = prove_worst_case(minimax, Geometry(), Player.O)
    clock = _Clock(slow_at=5, thinking=10.0)  # the loss comes at ply 5, then time runs out
    monkeypatch.setattr(worstcase, "time", clock)
    cut = prove_worst_case(minimax, Geometry(), Player.O, rows=clock.rows(minimax), seconds=5.0)
    assert whole.complete
    assert whole.line == (4, 0, 3, 2, 5)
    assert (cut.worst_case, cut.line, cut.complete, cut.win) == (-1, whole.line, False, None)
    assert cut.positions < whole.positions


def test_the_api_bounds_a_proof_only() -> None:
    with pytest.raises(TttlabError, match="applies with prove=True"):
        tttlab.evaluate("perfect", seconds=5.0)
    with pytest.raises(TttlabError, match="above 0"):
        tttlab.evaluate("perfect", prove=True, seconds=0.0)
    proof = tttlab.evaluate("minimax:1", prove=True, seconds=600.0)
    assert (proof.X.worst_case, proof.O.line) == (0, (4, 0, 3, 2, 5))


def test_progress_follows_the_walk_to_the_reports_count() -> None:
    steps: list[ProofProgress] = []
    perfect = make_agent("perfect", Geometry())
    report = prove_worst_case(perfect, Geometry(), Player.O, progress=steps.append)
    assert [s.ply for s in steps] == sorted(s.ply for s in steps)
    assert [s.positions for s in steps] == sorted(s.positions for s in steps)
    assert {s.side for s in steps} == {Player.O}
    # O is asked on the odd plies, about every position of the ply by the last batch
    assert sorted({s.ply for s in steps if s.asked}) == [1, 3, 5, 7]
    assert all(s.asked == s.frontier for s in steps if s.asked)
    assert (steps[-1].ply, steps[-1].frontier) == (9, 0)
    assert steps[-1].positions == report.positions == 1914

    seen: list[ProofProgress] = []
    proof = tttlab.evaluate("minimax:1", prove=True, on_progress=seen.append)
    assert [s.side for s in seen] == sorted((s.side for s in seen), key=int)
    assert {s.side for s in seen} == {Player.X, Player.O}
    last_o = [s for s in seen if s.side is Player.O][-1]
    assert proof.O.positions == last_o.positions


def test_an_agent_that_plays_an_occupied_cell_is_refused() -> None:
    class Cheat:
        name = "cheat"
        deterministic = True  # judged here directly: believed

        def move_probabilities(self, position: Position) -> dict[int, float]:
            return {0: 1.0}

        def select_move(self, position: Position, rng: np.random.Generator) -> int:
            return 0

        def move_values(self, position: Position) -> None:
            return None

    with pytest.raises(AgentError, match="occupied cell"):
        prove_worst_case(Cheat(), Geometry(), Player.X)


class _HalfOccupied:
    """Half its probability on a free cell, half on cell 0 even when it is taken: the exact
    judge used to drop that half and report worst_case=2, while the proof refused it."""

    name = "half"
    deterministic = True

    def move_probabilities(self, position: Position) -> dict[int, float]:
        return {0: 0.5, position.legal_moves[-1]: 0.5}

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        return position.legal_moves[-1]

    def move_values(self, position: Position) -> None:
        return None


@pytest.mark.parametrize("judge", ["exact", "proof"])
def test_probability_on_an_occupied_cell_is_refused_by_both_judges(judge: str) -> None:
    """One rule for both (tttlab.evaluate wraps such an object as user code, which refuses
    it itself; the judges take it directly): the refusal names the position."""
    judges: dict[str, Callable[[], object]] = {
        "exact": lambda: evaluate_seats(_HalfOccupied(), Geometry(), (Player.O,)),
        "proof": lambda: prove_worst_case(_HalfOccupied(), Geometry(), Player.O),
    }
    with pytest.raises(AgentError, match=r"^half plays an occupied cell in X\.\./\.\.\./\.\.\.$"):
        judges[judge]()


@pytest.mark.parametrize("broken", ["nan", "zero"])
def test_an_agent_that_plays_no_move_is_refused_by_every_judge(broken: str) -> None:
    """A network whose weights are all NaN (or a table of zeros, playing nothing) was proved
    unbeatable on both seats with 0/0/0 results, and judged worst case 2 by the table. Such
    a network can no longer be built; an agent whose probabilities are NaN, or that gives
    none, is refused by every judge."""
    g = Geometry()
    network = _network(g, "policy-value", 0)
    params = {name: np.full_like(value, np.nan) for name, value in network.params.items()}
    with pytest.raises(AgentError, match=r"torso.0.weight holds values that are not finite"):
        NetworkAgent(network.algorithm, g, network.architecture, params)

    class Silent:
        name = "silent"

        def move_probabilities(self, position: Position) -> dict[int, float]:
            return {m: float("nan") for m in position.legal_moves} if broken == "nan" else {}

        def select_move(self, position: Position, rng: np.random.Generator) -> int:
            return 0

        def move_values(self, position: Position) -> None:
            return None

    agent = Silent()
    wanted = re.escape("silent plays no move at .../.../...")  # the empty board
    for prove in (True, False):  # as someone's object (asked twice), and believed
        with pytest.raises(AgentError, match=wanted):
            tttlab.evaluate(agent, prove=prove)
    agent.deterministic = True  # type: ignore[attr-defined]
    with pytest.raises(AgentError, match=wanted):
        prove_worst_case(agent, g, Player.X)
    with pytest.raises(AgentError, match=wanted):
        evaluate_seats(agent, g)


def test_the_api_and_a_board_past_the_tables() -> None:
    """A network on 5×5 k=4 (no table exists): proved quickly when it can be beaten, with a
    losing line that replays; the API carries the same report."""
    geometry = Geometry(5, 5, 4)
    agent = _network(geometry, "q", 4)
    report = prove_worst_case(agent, geometry, Player.O, after_loss=0)
    assert report.worst_case == -1
    assert not report.complete
    assert report.as_json()["proved"] is True
    assert report.as_json()["vs_random"] is None
    assert report.line is not None
    _assert_losing_line(agent, geometry, Player.O, report.line)
    evaluation = tttlab.evaluate("minimax:1", "3x3", "X", prove=True)
    assert evaluation.O is None
    assert evaluation.X is not None
    proved, table = (
        evaluation.X.as_json(),
        evaluate_seats(make_agent("minimax:1", Geometry()), Geometry())["X"].as_json(),
    )
    assert set(proved) - set(table) == {
        "proved",
        "positions",
        "seconds",
        "losing_line",
        "losing_position",
    }
    assert (proved["optimal_share"], proved["positions"], proved["losing_line"]) == (
        None,
        316,
        None,
    )
    for field in ("worst_case", "decision_positions", "score_vs_random"):
        assert proved[field] == pytest.approx(table[field], abs=1e-12)
