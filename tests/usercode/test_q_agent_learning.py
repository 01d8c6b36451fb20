"""The learning checks' calls and words (:mod:`tttlab.usercode.exercises.q_agent_learning`):
40 calls of one episode, then calls of several episodes, the ones at ε > 0 sharing the
shares' false alarms evenly; the words of a counterexample name the call to reproduce; and a
note is given when the marks reached Board.play in another form than the text's, never for
answers that are no answers."""

from __future__ import annotations

from typing import Any

import pytest

from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises import base, q_agent_learning
from tttlab.usercode.exercises.q_agent_learning import (
    EPISODES,
    SEVERAL,
    SHARES_ALARM,
    learning_call,
    learning_cases,
    learning_expected,
    learning_wrong,
    mark_notes,
)


def test_the_calls_of_one_check() -> None:
    cases = learning_cases(400_000)
    assert len(cases) == EPISODES + len(SEVERAL)
    assert len({c.arg[0] for c in cases}) == len(cases)  # a seed each
    assert [c.rank for c in cases] == list(range(len(cases)))
    assert {c.arg[5] for c in cases[:EPISODES]} == {1}
    several = cases[EPISODES:]
    assert [c.arg[1:] for c in several] == [list(s) for s in SEVERAL]
    assert any(c.arg[1] == 0 and c.arg[5] > 1 for c in several)  # resets, greedy
    assert sum(c.arg[1] > 0 and c.arg[5] >= 40 for c in several) >= 3  # the shares
    assert {c.arg[4] for c in cases[:EPISODES]} == {0.0, 0.25}


def test_a_counterexample_names_the_call_to_reproduce() -> None:
    case = learning_cases(500_000)[EPISODES + 3]
    call = learning_call("sarsa", case)
    assert call == (
        "agent = Agent(0.5, 0.8, 0.3); agent.q, agent.states = start(500043, 0.0); "
        "random.seed(500043); np.random.seed(500043); agent.sarsa(40)"
    )
    expected = learning_expected("sarsa", case)
    assert expected.startswith("40 games, each from an empty board, played through Board.play")
    assert "SARSA update" in expected
    assert expected.endswith("(a likelihood-ratio test: false alarms at most 1e-6 per check)")
    one = learning_expected("qlearning", learning_cases(400_000)[4])
    assert one.startswith("the game played through Board.play, every move greedy")
    assert "shares" not in one


def _answer(marks: list[str]) -> list[Any]:
    plays = [["000000000", 0, marks[0], "100000000"], ["100000000", 1, marks[1], "120000000"]]
    return ["v", [plays, [], [], [], [], [2, 0, 0, 0, 0]]]


def test_marks_in_another_form_get_one_note() -> None:
    form = base.row(*(base.listing(lambda v: True),) * 5, base.listing(base.kind(int)))
    assert mark_notes({"qlearning": [_answer(["'1'", "'2'"])]}, form) == []
    notes = mark_notes(
        {"qlearning": [_answer(["1", "2"])], "sarsa": [_answer(["True", "False"])]}, form
    )
    assert notes == [
        "marks given to Board.play as 1, 2, False, True, not the text's '1' and '2': each move "
        "judged by the mark its own Board wrote"
    ]
    junk: dict[str, list[list[Any]]] = {"sarsa": [["v", ["g", "x"]], ["e", "raised"], ["t"]]}
    assert mark_notes(junk, form) == []
    odd = {"sarsa": [_answer(["'\x1b[2J'", "'2'"])]}
    assert "\\x1b" in mark_notes(odd, form)[0]  # what the code gave, shown, never obeyed


def test_the_judge_shares_the_false_alarms_among_the_calls_it_tests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[float] = []

    def judge(function: str, arg: list[Any], value: Any, truth: Any, alarm: float) -> None:
        asked.append(alarm)

    monkeypatch.setattr(q_agent_learning, "first_wrong", judge)
    tested = sum(1 for epsilon, *_, n in SEVERAL if epsilon > 0 and n > 1)
    assert tested == 4
    for case in learning_cases(400_000)[-4:]:
        assert learning_wrong("qlearning", case, [], exercise_truth()) is None
    assert asked == [SHARES_ALARM / tested] * 4
    assert SHARES_ALARM == 1e-6
