"""The protocol declared once (:mod:`tttlab.usercode.boxside.schema`): which outcomes exist,
which the worker may give and which only the caller writes, and how each is said."""

from __future__ import annotations

from typing import Any

import pytest

from tttlab.usercode.boxside.schema import (
    ANSWERED,
    CALLER_ONLY,
    OUTCOMES,
    cut,
    describe,
    outcome_problem,
)


@pytest.mark.parametrize(
    "outcome",
    [
        ["v", 1],
        ["v", [1, 2], "changed"],
        ["e", "TypeError: x"],
        ["x", "0"],
        ["i"],
        ["t"],
        ["k", "exit code 3"],
        ["b", "a line that is not JSON"],
    ],
)
def test_every_kind_of_outcome_in_its_form_is_one(outcome: list[Any]) -> None:
    assert outcome_problem(outcome) is None


@pytest.mark.parametrize(
    "outcome",
    [
        [],
        "v",
        ["q"],
        ["v"],
        ["v", 1, "other"],
        ["e"],
        ["e", 5],
        ["e", "x" * 201],
        ["i", 1],
        ["t", "late"],
        ["k"],
        ("v", 1),
    ],
)
def test_anything_else_is_no_outcome(outcome: Any) -> None:
    assert outcome_problem(outcome) is not None


def test_the_worker_cannot_answer_with_the_callers_outcomes() -> None:
    assert set(ANSWERED) | set(CALLER_ONLY) == set(OUTCOMES)
    assert not set(ANSWERED) & set(CALLER_ONLY)
    for kind in CALLER_ONLY:
        outcome = [kind, "text"] if OUTCOMES[kind] else [kind]
        assert outcome_problem(outcome) is None
        assert outcome_problem(outcome, ANSWERED) is not None


def test_each_outcome_without_a_value_is_said_in_one_line() -> None:
    assert describe(["v", 1]) is None
    said = {kind: describe([kind, "it"] if OUTCOMES[kind] else [kind]) for kind in OUTCOMES}
    assert said["t"] == "did not return within the per-call time limit"
    assert said["k"] == "the process ended during the call (it)"
    assert said["b"] == "gave no answer the grader can read (it)"
    assert describe(["t"], import_seconds=30) == "takes more than 30 s to import"
    assert describe(["e", "E: boom"], import_seconds=30) == "does not import: E: boom"
    assert all(text is None or "\n" not in text for text in said.values())


def test_a_text_is_cut_at_a_word_and_the_cut_marked() -> None:
    said = "Environment.__init__() missing 2 required positional arguments: 'rows' and 'columns'"
    assert cut(said, 80) == (
        "Environment.__init__() missing 2 required positional arguments: 'rows' and …"
    )
    assert cut("the agent tttlab cannot name", 24) == "the agent tttlab …"
    assert cut("x" * 500, 80) == "x" * 79 + "…"  # one word longer than the half: cut in it
    assert cut("short enough", 12) == "short enough"
    for text in (said, "x" * 500, "a  b " * 40, "word " * 3):
        for chars in range(1, 90):
            shorter = cut(text, chars)
            assert len(shorter) <= chars
            assert cut(shorter, chars) == shorter
            assert shorter == text or shorter.endswith("…") or chars < 2


def test_an_exception_is_said_in_one_line_whatever_its_str_does() -> None:
    from tttlab.usercode.boxside.schema import said

    class Broken(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    assert said(ValueError("which_player must be\n'X' or 'O'")) == (
        "ValueError: which_player must be 'X' or 'O'"
    )
    assert said(KeyError()) == "KeyError"
    assert said(Broken()) == "Broken"
    assert said(ValueError("word " * 40), 20) == "ValueError: word word word …"
