"""How the box's worker loads a student's code and calls it
(:mod:`tttlab.usercode.boxside.loading`): a call's value, error, ``sys.exit``, ``input()``
or running past its time becomes an outcome instead of ending the worker; the student's
names are found under their own names, where the grader read them; and a file loaded by its
definitions runs its imports, functions, classes and assignments, and skips the rest."""

from __future__ import annotations

import re
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
    assert guarded(fails, ("x" * 500,)) == ["e", "ValueError: " + "x" * 79 + "…"]
    words = "Environment.__init__() missing 2 required positional arguments: 'rows' and 'columns'"
    assert guarded(fails, (words,)) == ["e", f"ValueError: {words[:74]} …"]  # at a word
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


#: A repository whose ``ttt_side/main.py`` imports the modules beside it, as Python does
#: when it runs that script (its folder first on the path): ``ttt_side`` is both the folder
#: and the module beside the script, ``ttt_side_helper`` both beside it and at the root.
BESIDE = {
    "ttt_side/main.py": """\
import sys
import ttt_side_helper
from ttt_side import VALUE
import ttt_side
from ttt_pkg.ttt_pkg import NAME


def helper_later():
    from ttt_side_helper import WHO
    return WHO
""",
    "ttt_side/ttt_side.py": "VALUE = 'beside'\n",
    "ttt_side/ttt_side_helper.py": "WHO = 'beside'\n",
    "ttt_side/sys.py": "MINE = True\n",
    "ttt_side/broken.py": "from ttt_side import MISSING\n",
    "ttt_side_helper.py": "WHO = 'root'\n",
    # a package: its relative imports, and its module of its own name imported by the
    # package's name (``ttt_pkg.ttt_pkg``, no module beside ttt_pkg/user.py)
    "ttt_pkg/__init__.py": "from .ttt_pkg import NAME as OWN\n",
    "ttt_pkg/ttt_pkg.py": "NAME = 'package'\n",
    "ttt_pkg/user.py": "from ttt_pkg.ttt_pkg import NAME\nfrom . import ttt_pkg as RELATIVE\n",
}


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for name, text in BESIDE.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.setattr(loading, "_STUDENT", [])
    yield tmp_path
    for name in [m for m in sys.modules if m.split(".")[0] in ("ttt_side", "ttt_pkg")]:
        sys.modules.pop(name)
    sys.modules.pop("ttt_side_helper", None)


def _job(*modules: str) -> dict[str, object]:
    return {
        "load": "definitions",
        "modules": list(modules),
        "renames": {},
        "lookup": {},
        "call_seconds": 5,
    }


def test_a_scripts_imports_take_the_modules_beside_it_first(repository: Path) -> None:
    load(_job("ttt_pkg", "ttt_pkg.user", "ttt_side.main", "ttt_side_helper"), [])
    main = sys.modules["ttt_side.main"]
    beside = sys.modules["ttt_side.ttt_side"]
    assert vars(main)["VALUE"] == "beside"
    assert vars(main)["ttt_side"] is beside  # the module beside it, not the folder
    assert hasattr(sys.modules["ttt_side"], "__path__")  # the folder: a namespace package
    assert vars(main)["ttt_side_helper"] is sys.modules["ttt_side.ttt_side_helper"]
    assert sys.modules["ttt_side_helper"].WHO == "root"  # the root's, for the root
    assert main.helper_later() == "beside"  # an import in a function, when it is called
    assert vars(main)["sys"] is sys  # a module built into Python is never shadowed
    assert "ttt_side.sys" not in sys.modules
    assert vars(main)["NAME"] == "package"  # from the root: no ttt_pkg beside main.py
    user = sys.modules["ttt_pkg.user"]
    assert vars(user)["NAME"] == "package"  # ttt_pkg beside it is no package: the root's
    assert vars(user)["RELATIVE"] is sys.modules["ttt_pkg.ttt_pkg"]
    assert sys.modules["ttt_pkg"].OWN == "package"


def test_a_name_the_module_beside_it_lacks_does_not_import(repository: Path) -> None:
    said = re.escape("cannot import name 'MISSING' from 'ttt_side.ttt_side'")
    with pytest.raises(ImportError, match=said):
        load(_job("ttt_side.broken"), [])


def test_an_import_that_fails_in_a_file_loaded_by_its_definitions_says_its_error_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "imp_consts.py").write_text("LENGTH = 3\n")
    (tmp_path / "imp_agent.py").write_text("import os\nfrom imp_consts import LENGTH, SIDE\n")
    for name, value in (("path", sys.path), ("meta_path", sys.meta_path)):
        monkeypatch.setattr(sys, name, list(value))  # load() adds to both
    monkeypatch.setattr(loading, "_STUDENT", [])
    monkeypatch.chdir(tmp_path)
    job = {"modules": ["imp_agent"], "renames": {}, "lookup": {}, "load": "definitions"}
    try:
        said = guarded(load, ({**job, "call_seconds": 5}, []))
    finally:
        for name in ("imp_agent", "imp_consts"):
            sys.modules.pop(name, None)
    assert said == [
        "e",
        "ImportError: cannot import name 'SIDE' from 'imp_consts' (imp_consts.py) "
        "(imp_agent.py line 2)",
    ]  # never "ImportError: ImportError: ...", nor the box's folder
