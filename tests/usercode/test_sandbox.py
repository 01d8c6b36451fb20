"""The grader's side of a box's run (:mod:`tttlab.usercode.sandbox`): the job's limits are the
ones declared in :mod:`tttlab.limits` (its pipes: ``test_pipes.py``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tttlab.limits import CALL_ANSWER_BYTES, TABLE_ANSWER_BYTES
from tttlab.usercode.grading import _planned
from tttlab.usercode.sandbox import Job


def test_each_check_may_answer_within_its_allowance_and_the_channel_holds_them_all() -> None:
    _, phases = _planned("course", ())
    job = Job(Path("t"), "course", "definitions", ("t.py",), (), phases, (), (), 60, 512)
    allowances = job.as_json(None, 32)["answer_bytes"]
    tables = {f for f, cases, _ in phases if len(cases) == 1}
    assert tables == {"get_state_hash_and_winner", "initialV_x", "initialV_o"}
    for (function, _, _), allowance in zip(phases, allowances, strict=True):
        assert allowance == (TABLE_ANSWER_BYTES if function in tables else CALL_ANSWER_BYTES)
    most = sum(
        len(cases) * allowance for (_, cases, _), allowance in zip(phases, allowances, strict=True)
    )
    assert job.channel_bytes() > most


def test_an_exercise_may_allow_a_larger_answer_for_a_check_of_its_own() -> None:
    _, phases = _planned("course", ())
    plain = Job(Path("t"), "course", "definitions", ("t.py",), (), phases, (), (), 60, 512)
    job = replace(plain, answer_limits={"get_state": 4096})
    answers = job.as_json(None, 32)["answer_bytes"]
    allowances = dict(zip((f for f, _, _ in phases), answers, strict=True))
    assert allowances["get_state"] == 4096
    assert allowances["game_over"] == CALL_ANSWER_BYTES
    cases = len(next(c for f, c, _ in phases if f == "get_state"))
    assert job.channel_bytes() - plain.channel_bytes() == cases * (4096 - CALL_ANSWER_BYTES)
