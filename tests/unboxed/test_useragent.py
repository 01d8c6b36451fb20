"""The user code agent: every position a judge needs asked twice and never believed, a
policy that answers two ways judged from samples, and an illegal move or an exception
named with its position."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import tttlab
from tttlab.agents import PerfectAgent
from tttlab.errors import AgentError, NotDeterministic
from tttlab.game import Geometry, Player, Position, state_space
from tttlab.unboxed import UserAgent, sampling_if_it_differs, user_agent

G3 = Geometry(3, 3, 3)


def batched_first(observations: Any, masks: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    return np.argmax(masks, axis=1)


def test_a_jax_batched_policy_is_judged_in_batches() -> None:
    jnp = pytest.importorskip("jax.numpy")
    calls: list[int] = []

    def policy(observations: Any, masks: Any) -> Any:
        calls.append(len(masks))
        return jnp.argmax(jnp.asarray(masks), axis=1)

    evaluation = tttlab.evaluate(policy, convention="batched")
    reference = tttlab.evaluate(batched_first)
    assert evaluation.to_dict() == reference.to_dict()
    space = state_space(G3)
    judged = [n for n in calls if n > 2]  # each seat's batch, then shuffled in two halves
    seats = [int((~space.terminal & (space.to_move == s)).sum()) for s in (1, 2)]
    assert sorted(judged) == sorted(x for n in seats for x in (n, (n + 1) // 2, n // 2))


def test_a_policy_that_answers_differently_is_judged_as_sampled() -> None:
    turn = iter(range(10**9))

    def noisy(observation: Any, action_mask: npt.NDArray[np.int8]) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[next(turn) % len(legal)])  # each legal move in turn

    agent = user_agent(noisy, G3)
    assert isinstance(agent, UserAgent)
    with pytest.raises(NotDeterministic, match=r"asked \.\.\./\.\.\./\.\.\. twice"):
        agent.move_probabilities(Position.initial(G3))
    agent.sample_instead()
    probabilities = agent.move_probabilities(Position.initial(G3))
    assert sum(probabilities.values()) == pytest.approx(1.0)
    assert len(probabilities) > 1
    evaluation = tttlab.evaluate(noisy, board="2x3k2")
    assert evaluation.sampled
    assert all(seat["sampled"] for seat in evaluation.to_dict().values())


def _first_free_but(late: str, answers: list[int]) -> Any:
    """The first free cell, except at the position ``late``, where it answers each of
    ``answers`` in turn (a policy that a few probes would call deterministic)."""
    asked = iter(answers * 100)

    def policy(position: str) -> int:
        return next(asked) if position == late else position.index(".")

    return policy


LATE = "XOXOXO..."  # reached by first_free as X: the first free cell, 6, wins for X


@pytest.mark.parametrize("batched", [False, True], ids=["one-by-one", "batched"])
def test_user_code_is_asked_every_position_twice(batched: bool) -> None:
    """Deterministic everywhere but one late position: the exact judge finds it (not 16
    probes), judges from samples, and says so."""
    policy = _first_free_but(LATE, [6, 7])
    target: Any = policy
    if batched:

        def target(observations: Any, masks: Any) -> Any:
            boards = observations[..., 0] + 2 * observations[..., 1]  # mover's view
            out = []
            for board, mask in zip(boards.reshape(len(masks), -1), masks, strict=True):
                movers = "XO" if int(mask.sum()) % 2 else "OX"
                text = "".join("." if v == 0 else movers[int(v) - 1] for v in board)
                out.append(policy(text))
            return np.array(out)

    evaluation = tttlab.evaluate(target, seat="X")
    assert evaluation.sampled
    agent = user_agent(target, G3)
    assert isinstance(agent, UserAgent)
    with pytest.raises(NotDeterministic, match=r"XOX/OXO/... twice, it answered 6, then 7"):
        agent.policy_matrix(Player.X)
    assert "is not deterministic" in agent.established()


def test_a_proof_is_refused_for_code_that_answers_two_ways() -> None:
    policy = _first_free_but(LATE, [6, 7])
    with pytest.raises(AgentError, match=r"not deterministic: asked XOX/OXO/... twice.*no proof"):
        tttlab.evaluate(policy, seat="X", prove=True)
    steady = _first_free_but(LATE, [6])
    assert tttlab.evaluate(steady, seat="X", prove=True).X is not None
    agent = user_agent(steady, G3)
    assert isinstance(agent, UserAgent)
    tttlab.evaluate(agent, seat="X")
    assert agent.established().endswith("the same way both times")


class _Declares:
    """Someone's object with the agent protocol that declares itself deterministic but
    draws its move probabilities at random: it is asked twice, not believed."""

    name = "liar"
    deterministic = True

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def move_probabilities(self, position: Position) -> dict[int, float]:
        return {int(self.rng.choice(position.legal_moves)): 1.0}

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        return next(iter(self.move_probabilities(position)))

    def move_values(self, position: Position) -> None:
        return None


def test_an_agent_objects_declaration_is_not_believed() -> None:
    with pytest.raises(AgentError, match=r"liar is not deterministic.*no proof"):
        tttlab.evaluate(_Declares(), prove=True)
    assert tttlab.evaluate(_Declares(), board="2x2k2").sampled


def test_mcts_declares_it_is_not_deterministic() -> None:
    """Its evaluation-mode search is seeded, but its play is not: no proof, and the exact
    verdict says it judged a sample."""
    with pytest.raises(AgentError, match=r"mcts\(20\) is not deterministic"):
        tttlab.evaluate("mcts:20", board="2x2k2", prove=True)
    assert tttlab.evaluate("mcts:20", board="2x2k2").sampled
    assert not tttlab.evaluate("random", board="2x2k2").sampled


def test_an_illegal_move_and_an_exception_name_the_position() -> None:
    def occupied(position: str) -> int:
        return position.index("X") if "X" in position else 0

    with pytest.raises(AgentError, match=r"occupied played the illegal move \d at position"):
        tttlab.evaluate(occupied, convention="position")

    def broken(position: str) -> int:
        if position.count("X") > 1:
            raise KeyError("no such state")
        return position.index(".")

    wanted = r"raised KeyError: 'no such state' \(test_useragent.py line \d+\) at position"
    with pytest.raises(AgentError, match=wanted):
        tttlab.evaluate(broken)


def test_only_user_code_that_answered_two_ways_is_judged_again_from_samples() -> None:
    agent = user_agent(_first_free_but(LATE, [6, 7]), G3)
    assert isinstance(agent, UserAgent)
    table = sampling_if_it_differs(agent, lambda: agent.policy_matrix(Player.X))
    assert agent.sampled
    assert set(agent.move_probabilities(Position.from_string(LATE))) == {6, 7}
    assert np.all(table[state_space(G3).decisions(Player.X)].sum(axis=1) == pytest.approx(1.0))

    def differs() -> None:
        raise NotDeterministic("another agent's")

    with pytest.raises(NotDeterministic, match="another agent's"):
        sampling_if_it_differs(PerfectAgent(G3), differs)


def _pairwise(base: Any, batched: bool) -> Any:
    """``base``'s answers, or the next legal cell after them, turn about: the turn changes at
    each call except one that repeats the call before it (the same position, or batch), which
    gets the same answer. Asked twice in a row, it always agrees with itself."""
    last: list[Any] = [None, None]  # the previous call's question and answer
    turn = iter(range(10**9))

    def flip(moves: Any, masks: Any) -> Any:
        out = []
        for move, mask in zip(moves, masks, strict=True):
            legal = list(np.flatnonzero(mask))
            out.append(legal[(legal.index(int(move)) + 1) % len(legal)])
        return np.array(out)

    def target(observations: Any, masks: Any) -> Any:
        question = (np.asarray(observations).tobytes(), np.asarray(masks).tobytes())
        if question != last[0]:
            moves = base(observations, masks)
            last[:] = [question, flip(moves, masks) if next(turn) % 2 else moves]
        return last[1]

    if batched:
        return target
    return lambda observation, mask: int(target(observation[None], mask[None])[0])


@pytest.mark.parametrize("batched", [False, True], ids=["one-by-one", "batched"])
def test_code_that_agrees_within_each_pair_of_calls_is_found_out(batched: bool) -> None:
    """Each position is asked again only after others, in a shuffled order: an answer that
    changes every second call is not deterministic, by the exact judge and by the proof."""
    policy = _pairwise(batched_first, batched)
    convention = "batched" if batched else "gym"
    evaluation = tttlab.evaluate(policy, convention=convention, board="2x3k2")
    assert evaluation.sampled
    agent = user_agent(_pairwise(batched_first, batched), G3, convention=convention)
    assert isinstance(agent, UserAgent)
    with pytest.raises(NotDeterministic, match="twice"):
        agent.policy_matrix(Player.X)
    proof_agent = user_agent(_pairwise(batched_first, batched), G3, convention=convention)
    with pytest.raises(AgentError, match="not deterministic"):
        tttlab.evaluate(proof_agent, seat="X", prove=True)
