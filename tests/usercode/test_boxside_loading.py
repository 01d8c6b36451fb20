"""How the box's worker loads a student's code and calls it
(:mod:`tttlab.usercode.boxside.loading`): a call's value, error, ``sys.exit``, ``input()``
or running past its time becomes an outcome instead of ending the worker; the student's
names are found under their own names, where the grader read them; and a file loaded by its
definitions runs its imports, functions, classes and assignments, and skips the rest."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tttlab.usercode.boxside import clock, loading
from tttlab.usercode.boxside.loading import InputCalled, Namespace, guarded, load


def test_a_call_gives_its_value_or_what_went_wrong_in_one_short_line() -> None:
    def fails(message: str) -> None:
        raise ValueError(message)

    def asks() -> None:
        raise InputCalled

    def deep(n: int) -> int:
        return deep(n + 1)

    assert guarded(lambda a, b: a + b, (2, 3)) == ["v", 5]
    assert guarded(fails, ("a\n   wrong  board",)) == ["e", "ValueError: a wrong board"]
    assert guarded(fails, ("x" * 500,)) == ["e", "ValueError: " + "x" * 80]
    assert guarded(fails, ("",)) == ["e", "ValueError"]
    assert guarded(sys.exit, (3,)) == ["x", "3"]
    assert guarded(sys.exit, ()) == ["x", "None"]
    assert guarded(asks, ()) == ["i"]
    assert guarded(deep, (0,)) == ["e", "RecursionError: maximum recursion depth exceeded"]


def test_a_call_past_its_seconds_is_stopped_and_the_timer_cleared() -> None:
    def forever() -> None:
        while True:
            pass

    assert guarded(forever, (), seconds=0.05) == ["t"]
    assert guarded(lambda: "after", (), seconds=0.05) == ["v", "after"]


def test_a_statement_that_sleeps_past_its_seconds_is_stopped() -> None:
    """Sleeping is the statement's own time (a limit that counted CPU time alone would let
    it sleep on)."""
    if not Path("/proc/self/schedstat").exists():
        pytest.skip("no scheduler statistics: the limit counts CPU time")
    assert guarded(time.sleep, (3600,), seconds=0.05) == ["t"]


def test_a_statement_is_not_stopped_for_the_time_it_waited_for_a_cpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its timer rings at its limit on the clock, and is set again for what is left of its
    own time: here the process is said to wait for a CPU nine tenths of the time, so a loop
    with a limit of 0.05 s runs nearly 0.5 s on the clock before it is stopped."""

    class Waiting(clock.Waits):
        def __init__(self, *_pids: object) -> None:
            self.fds = [0]
            self.start = time.monotonic()

        def seconds(self) -> float:
            return 0.9 * (time.monotonic() - self.start)

        def close(self) -> None:
            pass

    monkeypatch.setattr(loading, "Waits", Waiting)
    ran = [0.0]

    def forever() -> None:
        start = time.monotonic()
        while True:
            ran[0] = time.monotonic() - start

    assert guarded(forever, (), seconds=0.05) == ["t"]
    assert ran[0] >= 0.4  # its own 0.045 s (the timer ends it within 5 ms) is 0.45 s


def test_without_scheduler_statistics_the_limit_counts_cpu_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Unknown(clock.Waits):
        def __init__(self, *_pids: object) -> None:
            self.fds = []

    monkeypatch.setattr(loading, "Waits", Unknown)

    def forever() -> None:
        while True:
            pass

    assert guarded(forever, (), seconds=0.05) == ["t"]
    assert guarded(time.sleep, (0.2,), seconds=0.05) == ["v", None]  # no CPU time: not stopped


def _module(name: str, **names: object) -> ModuleType:
    module = ModuleType(name)
    vars(module).update(names)
    return module


def test_names_are_looked_up_where_they_were_read_and_under_the_students_names() -> None:
    first = _module("game", winner=1, tiles="first's", player="game.player")
    second = _module("utils", winner=2, actions="utils.actions")
    names = Namespace({"game": first, "utils": second}, {"board": "tiles"}, {"winner": "utils"})
    assert names.winner == 2  # where the grader read that it is defined
    assert names.actions == "utils.actions"  # else in every module in order
    assert names.player == "game.player"
    assert names.board == "first's"  # the exercise's board is the student's tiles
    with pytest.raises(AttributeError, match="minimax"):
        names.minimax  # noqa: B018


STUDENT = """\
import ttt_loading_helper
BONUS = 1


def answer():
    return ttt_loading_helper.BASE + BONUS


def forever():
    while True:
        pass


print("training...")
for episode in range(10**12):
    pass
SLOW = forever()
"""
HELPER = """\
BASE = 41
while True:
    pass
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A student's folder as the worker's working folder; the import system as it was after."""
    (tmp_path / "ttt_loading_student.py").write_text(STUDENT)
    (tmp_path / "ttt_loading_helper.py").write_text(HELPER)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    yield tmp_path
    for name in ("ttt_loading_student", "ttt_loading_helper"):
        sys.modules.pop(name, None)


def test_a_file_loaded_by_its_definitions_skips_its_game_and_training(folder: Path) -> None:
    job = {
        "load": "definitions",
        "modules": ["ttt_loading_student"],
        "renames": {},
        "lookup": {},
        "call_seconds": 0.2,
    }
    skipped: list[str] = []
    names = load(job, skipped)
    assert names.answer() == 42  # the helper it imports is loaded by its definitions too
    assert skipped == [
        "ttt_loading_helper.py lines 2-3",
        "ttt_loading_student.py line 14",
        "ttt_loading_student.py lines 15-16",
        "ttt_loading_student.py line 17 (did not return within the per-call time limit)",
    ]
    with pytest.raises(AttributeError):
        names.SLOW  # noqa: B018


def test_what_the_code_raises_names_its_own_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "loc_helpers.py").write_text("def deep(n):\n    return 1 / n\n")
    (tmp_path / "loc_main.py").write_text(
        "from loc_helpers import deep\n\ndef go():\n    return deep(0)\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.setattr(loading, "_STUDENT", [])
    job = {"renames": {}, "lookup": {}, "load": "definitions", "modules": ["loc_main"]}
    try:
        namespace = load({**job, "call_seconds": 5}, [])
        said = guarded(namespace.go, ())
    finally:
        for name in ("loc_main", "loc_helpers"):
            sys.modules.pop(name, None)
    assert said == ["e", "ZeroDivisionError: division by zero (loc_helpers.py line 2)"]
    assert guarded(lambda: 1 / 0, ()) == ["e", "ZeroDivisionError: division by zero"]  # ours
