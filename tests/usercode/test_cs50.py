"""The CS50 exercise's checks (:mod:`tttlab.usercode.exercises.cs50`): every check passes on
correct modules and fails, for the right reason, on a module with one classic student bug;
nothing a module does hangs or breaks the checker (the ``ttt check`` command line:
tests/cli/test_check_cmd.py).

The faulty variants are the memoized correct module (fast to grade) with one change each,
written to a temporary folder; each change must apply, so a corpus edit cannot silently
turn a variant into the correct module.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.usercode.helpers import judged_here, write_edited
from tttlab.game import Geometry, state_space
from tttlab.usercode.exercises.cs50 import OUT_OF_RANGE
from tttlab.usercode.grading import check_cs50
from tttlab.usercode.sandbox import Job

CORPUS = Path(__file__).parent / "corpus"
MEMO = (CORPUS / "memo_minimax.py").read_text()


def variant(folder: Path, changes: list[tuple[str, str]], name: str = "tictactoe.py") -> Path:
    return write_edited(MEMO, changes, folder / name)


def test_a_correct_module_passes_every_check_on_every_board() -> None:
    report = check_cs50(CORPUS / "memo_minimax.py")
    assert report.ok, report.as_json()
    assert report.exit_code == 0
    counts = {name: check.checked for name, check in report.checks.items()}
    assert counts == {
        "initial_state": 1,
        "winner": 5478,
        "terminal": 5478,
        "utility": 958,
        "player": 4520,
        "actions": 4520,
        "result": 16167,
        "minimax": 5478,
    }
    space = state_space(Geometry(3, 3, 3))
    occupied = int(space.ply[~space.terminal].sum())
    assert report.checks["result"].extra["invalid_checked"] == occupied + 4520 * len(OUT_OF_RANGE)
    assert report.coverage == 1.0
    assert report.minimax_seconds_empty_board is not None
    assert not report.problems
    # nothing noticed: the one note is the time limits that applied
    assert [n for n in report.notes if not n.startswith("time limits ")] == []
    assert report.limits["factor"] == 1.0


#: Boards with this many empty cells or more: the slow modules below never finish minimax
#: on one (it sleeps), so that where the time limit stops them does not depend on the load.
NEVER_ON = 5


def test_plain_and_alpha_beta_minimax_are_right_as_far_as_the_time_limit_goes(
    tmp_path: Path,
) -> None:
    """Slow is not wrong: each module, made to sleep on every board with 5 empty cells or
    more, is ``incomplete``, every board checked before it right. The boards go fullest
    first: they are all checked, up to the first with 5 empty cells, however busy the
    machine (10 s on the clock for well under a second of work). The two are graded side by
    side, in threads, as ``ttt check -j 2`` grades them: each waits out its own 10 s."""
    modules = ("plain_minimax.py", "alphabeta_minimax.py")
    slow = (
        "def minimax(board):\n",
        "def minimax(board):\n"
        f"    if sum(cell is EMPTY for row in board for cell in row) >= {NEVER_ON}:\n"
        "        import time\n"
        "        time.sleep(3600)\n",
    )
    paths = [write_edited((CORPUS / m).read_text(), [slow], tmp_path / m) for m in modules]
    with ThreadPoolExecutor(max_workers=len(paths)) as pool:
        reports = list(
            pool.map(lambda p: check_cs50(p, time_limit=10, only=("utility", "minimax")), paths)
        )
    space = state_space(Geometry(3, 3, 3))
    for module, report in zip(modules, reports, strict=True):
        minimax = report.checks["minimax"]
        assert report.file.endswith(module)
        assert report.checks["utility"].ok
        assert minimax.wrong == 0
        assert minimax.checked == int((space.ply > 9 - NEVER_ON).sum())
        assert 0 < report.coverage < 1
        assert not report.ok
        assert report.status == minimax.status == "incomplete"  # slow is not wrong
        assert report.exit_code == 3
        assert report.problems == (
            "stopped at the time limit (10 s) in minimax on "
            + report.problems[0].rpartition(" on ")[2],
        )
        assert sum(1 for c in report.problems[0].rpartition(" on ")[2] if c == ".") == NEVER_ON
        assert any("s of CPU time in its 10 s on the clock" in note for note in report.notes)


def test_a_time_limit_reached_during_the_import_is_incomplete_never_the_students_fail(
    tmp_path: Path,
) -> None:
    """The time limit is the clock's: here it comes before the import's own limit (the
    module loops at import, and its 1 s of its own time cannot be spent within 1 s on the
    clock after its box started), so the file is ``incomplete``, whether it was importing
    or its box was still starting (a busy machine), and a note says what the box had."""
    path = variant(tmp_path, [("EMPTY = None\n", "EMPTY = None\nwhile True:\n    pass\n")])
    report = check_cs50(path, time_limit=1.0, only=("winner",))
    assert report.status == "incomplete", report.as_json()
    assert len(report.problems) == 1
    assert report.problems[0].startswith("stopped at the time limit (1 s) "), report.problems
    assert report.problems[0].endswith(
        ("while the module was imported", "before the box was ready")
    )
    assert any("s of CPU time in its 1 s on the clock" in note for note in report.notes)


#: (check, changes to the correct module, words the counterexample must contain).
BUGS = {
    "player-inverted": (
        "player",
        [("return O if xs > os_ else X", "return X if xs > os_ else O")],
        ("should return X", "got O"),
    ),
    "actions-miss-last-row": (
        "actions",
        [("for i in range(3) for j in range(3) if", "for i in range(2) for j in range(3) if")],
        ("should return {(0, 0)", "got {(0, 0)"),
    ),
    "actions-include-occupied": (
        "actions",
        [("if board[i][j] is EMPTY}", "}")],
        ("got {(0, 0), (0, 1)",),
    ),
    "result-negative-index": (
        "result",
        [("not (0 <= i < 3 and 0 <= j < 3) or ", "i >= 3 or j >= 3 or ")],
        ("(-1, 0)) should raise an exception", "got [[EMPTY, EMPTY, EMPTY], [EMPTY"),
    ),
    "result-overwrites": (
        "result",
        [(" or board[i][j] is not EMPTY", "")],
        ("should raise an exception", "got [["),
    ),
    "result-shallow-copy": (
        "result",
        [("new = [list(row) for row in board]", "new = board.copy()")],
        ("the input board was modified",),
    ),
    "result-always-x": (
        "result",
        [("new[i][j] = player(board)", "new[i][j] = X")],
        ("should return [[X, O, EMPTY]", "got [[X, X, EMPTY]"),
    ),
    "winner-misses-anti-diagonal": (
        "winner",
        [(", [(0, 2), (1, 1), (2, 0)]]", "]")],
        ("should return X", "got None"),
    ),
    "terminal-misses-full-board": (
        "terminal",
        [("return winner(board) is not None or all(", "return winner(board) is not None and all(")],
        ("should return True", "got False"),
    ),
    "utility-sign": (
        "utility",
        [("return 1 if w == X else -1 if w == O else 0", "return 1 if w else 0")],
        ("should return -1", "got 1"),
    ),
    "utility-garbage": (
        "utility",
        [("return 1 if w == X else -1 if w == O else 0", "return f'{w} wins'")],
        ("not a valid utility",),
    ),
    "minimax-first-action": (
        "minimax",
        [("return pick(sorted(actions(board)), key=", "return min(sorted(actions(board)), key=")],
        ("should return one of", "keeps the game value"),
    ),
    "minimax-terminal-not-none": (
        "minimax",
        [("    if terminal(board):\n        return None\n", "")],
        ("should return None (the game is over)",),
    ),
    "minimax-wrong-side": (
        "minimax",
        [("pick = max if player(board) == X else min", "pick = max")],
        ("should return one of",),
    ),
    "terminal-sys-exit": (
        "terminal",
        [("def terminal(board):\n", "def terminal(board):\n    import sys\n    sys.exit(0)\n")],
        ("called sys.exit(0)",),
    ),
    "actions-out-of-memory": (
        "actions",
        [("def actions(board):\n", "def actions(board):\n    _ = [0] * 10**10\n")],
        ("raised MemoryError",),
    ),
}


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_each_check_fails_on_its_classic_bug_for_the_right_reason(bug: str, tmp_path: Path) -> None:
    """Judged in this process through the exercise's own side of the box (the box's runs
    are tested on the correct modules, the hostile ones and the configurations)."""
    function, changes, words = BUGS[bug]
    check = judged_here(variant(tmp_path, changes), "cs50", function, seconds=60)
    assert not check.ok
    assert check.status == "fail"
    assert check.wrong > 0
    assert check.example is not None
    for word in words:
        assert word in check.example.repro, check.example.repro


def test_a_classic_bug_fails_in_its_box_on_its_own(tmp_path: Path) -> None:
    function, changes, words = BUGS["result-negative-index"]
    report = check_cs50(variant(tmp_path, changes), only=(function,), time_limit=60)
    check = report.checks[function]
    assert check.wrong > 0
    assert check.example is not None
    assert all(word in check.example.repro for word in words), check.example.repro
    assert report.exit_code == 1
    assert not report.problems, report.problems


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ([('X = "X"', 'X = = "X"')], "does not import: SyntaxError"),
        ([("from functools import cache", "from functools import cachee")], "name 'cachee'"),
        ([("EMPTY = None\n", "EMPTY = None\ninput('move? ')\n")], "calls input() when imported"),
        ([("EMPTY = None\n", "EMPTY = None\nraise SystemExit(3)\n")], "calls sys.exit()"),
        (
            [("EMPTY = None\n", "EMPTY = None\nwhile True:\n    pass\n")],
            "takes more than 0.3 s to import",
        ),
        # a name a check asked for (one only the checks left out need is no problem)
        ([("def player(board):", "def other(board):")], "does not define: player"),
        (
            [("def player(board):\n", "def player(board):\n    import os\n    os._exit(3)\n")],
            "the process ended in player on .../.../... (exit code 3)",
        ),
        (
            [("def player(board):\n", "def player(board):\n    while True:\n        pass\n")],
            "player did not return within 0.3 s on .../.../...",
        ),
    ],
    ids=["syntax", "import", "input", "exit", "import-loop", "missing", "crash", "loop"],
)
def test_what_a_module_does_wrong_is_one_line(
    changes: list[tuple[str, str]], problem: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each in one line, the same on a busy machine: the limits that fail a module (0.3 s
    for the import and for a call) count its own time, and the time limit on the clock is
    one the machine cannot reach first (60 s)."""
    monkeypatch.setattr(Job, "import_seconds", property(lambda job: 0.3))
    path = variant(tmp_path, changes)
    report = check_cs50(path, time_limit=60, call_seconds=0.3, only=("initial_state", "player"))
    assert not report.ok
    assert len(report.problems) == 1
    assert problem in report.problems[0]
    assert "\n" not in report.problems[0]
    assert "Traceback" not in report.problems[0]


def test_a_name_only_the_checks_left_out_need_is_no_problem(tmp_path: Path) -> None:
    path = variant(tmp_path, [("def minimax(board):", "def other(board):")])
    report = check_cs50(path, time_limit=10, only=("initial_state", "player"))
    assert report.ok, report.as_json()
    assert report.problems == ()


def test_a_module_that_is_not_installed_fails_only_the_calls_that_use_it(tmp_path: Path) -> None:
    """A stub stands in for it (named in a note): the import goes on, and a call that uses
    the module fails with that call's own error."""
    path = variant(
        tmp_path,
        [
            ("from functools import cache", "from functools import cache\nimport numpyy"),
            ("def player(board):\n", "def player(board):\n    numpyy.zeros(3)\n"),
        ],
    )
    report = check_cs50(path, only=("initial_state", "player"))
    assert report.checks["initial_state"].ok
    player = report.checks["player"]
    assert player.wrong == player.checked > 0
    assert player.example is not None
    assert "numpyy.zeros: numpyy is not installed" in player.example.got
    assert any("stood in by stubs: numpyy" in note for note in report.notes), report.notes


def test_printing_is_reported_and_does_not_reach_the_output(tmp_path: Path) -> None:
    path = variant(
        tmp_path, [("def player(board):\n", "def player(board):\n    print('thinking...')\n")]
    )
    report = check_cs50(path, only=("player",))
    assert report.ok
    assert "prints while being graded (4,520 times; the first: 'thinking...')" in report.notes


def test_a_folder_with_several_candidates_is_refused_naming_them(tmp_path: Path) -> None:
    variant(tmp_path, [], "alice.py")
    variant(tmp_path, BUGS["player-inverted"][1], "bob.py")
    report = check_cs50(tmp_path, only=("player",))
    assert report.status == "fail"  # the folder's own: the grader did not fail
    assert report.graded == ()
    assert "2 files define minimax() (alice.py, bob.py)" in report.problems[0]
    variant(tmp_path, BUGS["player-inverted"][1], "tictactoe.py")
    report = check_cs50(tmp_path, only=("player",))
    assert report.graded == ("tictactoe.py",)
    assert report.status == "fail"
