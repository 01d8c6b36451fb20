"""The parent believes nothing on the results channel: every line is checked for its type,
its range and its phase, and a line the runner cannot have written makes the file "could
not be graded", never a pass and never an exception in the grader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises import EXERCISES
from tttlab.usercode.grading import _planned, grade
from tttlab.usercode.sandbox import STDERR_KEPT, Job, RawRun, _Pipes

SPEC = EXERCISES["cs50"]
CALLS, PHASES = _planned("cs50", ("player", "winner"))
JOB = Job(Path("t.py"), "cs50", "import", ("t.py",), SPEC.names, PHASES, (), (), 60, 512)
IMPORTED = {"import": ["v"], "missing": [], "skipped": [], "printed": 0}


def _honest(function: str) -> list[Any]:
    truth = exercise_truth()
    cases = CALLS.cases[function]
    answer = truth.to_move if function == "player" else truth.winner
    return [
        {"phase": function},
        *(["v", answer[c.rank]] for c in cases),
        {"end": function, "printed": 0, "first_print": ""},
    ]


def _graded(lines: list[Any]) -> tuple[RawRun, str]:
    raw = RawRun()
    raw.read(JOB, [json.dumps(line).encode() for line in lines])
    return raw, grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC).status


def test_the_honest_runners_lines_are_graded() -> None:
    raw, status = _graded([IMPORTED, *_honest("winner"), *_honest("player")])
    assert raw.channel is None
    assert status == "pass"


FORGED = {
    "a print count that is text first": [{"printed": "a"}],
    "a result before the import": [["v", "X"]],
    "a result outside a check": [IMPORTED, ["v", "X"]],
    "a check that was not planned": [IMPORTED, {"phase": "minimax"}],
    "checks out of order": [IMPORTED, *_honest("player"), {"phase": "winner"}],
    "a check twice": [IMPORTED, *_honest("player"), {"phase": "player"}],
    "more results than calls": [IMPORTED, *_honest("player")[:-1], ["v", "X"]],
    "an outcome of no kind": [IMPORTED, {"phase": "player"}, ["q", 1]],
    "a value missing": [IMPORTED, {"phase": "player"}, ["v"]],
    "an error that is not text": [IMPORTED, {"phase": "player"}, ["e", 5]],
    "a value of no form": [IMPORTED, {"phase": "player"}, ["v", {"X": 1}]],
    "a symbol that is no symbol": [IMPORTED, {"phase": "winner"}, ["v", "nonsense"]],
    "the end of another check": [IMPORTED, {"phase": "player"}, {"end": "winner"}],
    "a print count going down": [{**IMPORTED, "printed": 5}, {"end": "x", "printed": 1}],
    "a mark of no kind": [IMPORTED, {"shape": "cs50"}],
    "a line that is not an object": [IMPORTED, 7],
}


@pytest.mark.parametrize("forged", sorted(FORGED))
def test_a_line_the_runner_cannot_have_written_is_never_graded(forged: str) -> None:
    raw, status = _graded(FORGED[forged])
    assert status == "error"
    report = grade(Path("t.py"), raw, JOB, CALLS, exercise_truth(), SPEC)
    assert "wrote to the grader's channel" in report.problems[0]
    assert report.checks == {}


def test_a_line_that_is_not_json_stops_the_reading() -> None:
    raw = RawRun()
    raw.read(JOB, [json.dumps(IMPORTED).encode(), b"\xff{not json"])
    assert raw.channel is not None
    assert raw.channel.startswith("line 2:")


def test_stderr_keeps_its_head_and_tail_within_the_bound() -> None:
    pipes = _Pipes.__new__(_Pipes)
    pipes.head, pipes.tail, pipes.dropped = bytearray(), bytearray(), 0
    for k in range(1000):
        pipes._keep_stderr(bytes([65 + k % 26]) * 1000)
    assert len(pipes.head) + len(pipes.tail) == STDERR_KEPT
    assert pipes.dropped == 1000 * 1000 - STDERR_KEPT
    text = pipes.stderr()
    assert text.startswith("A" * 1000)
    assert f"[... {pipes.dropped:,} bytes dropped ...]" in text
    assert text.endswith(chr(65 + 999 % 26) * 1000)
