"""``ttt check``: every check passes on correct modules and fails, for the right reason, on
a module with one classic student bug; nothing a module does hangs or breaks the checker.

The faulty variants are the memoized correct module (fast to grade) with one change each,
written to a temporary folder; each change must apply, so a corpus edit cannot silently
turn a variant into the correct module.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import ttt
from tests.usercode.helpers import judged_here, write_edited
from tttlab.cli import main
from tttlab.game import Geometry, state_space
from tttlab.usercode import box, grading
from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises.cs50 import OUT_OF_RANGE
from tttlab.usercode.grading import check_cs50, check_path
from tttlab.usercode.report import CheckReport

CORPUS = Path(__file__).parent / "corpus"
MEMO = (CORPUS / "memo_minimax.py").read_text()


def variant(folder: Path, changes: list[tuple[str, str]], name: str = "tictactoe.py") -> Path:
    return write_edited(MEMO, changes, folder / name)


def test_the_check_space_is_the_facts() -> None:
    truth = exercise_truth()
    assert truth.size == 5478
    assert len(truth.terminals()) == 958
    assert len(truth.decisions()) == 4520
    assert sum(len(truth.legal[i]) for i in truth.decisions()) == 16167
    assert truth.boards[0] == "." * 9
    # report order: by ply, then the most likely between random players first
    pairs = list(zip(range(truth.size - 1), range(1, truth.size), strict=True))
    assert all(truth.ply[a] <= truth.ply[b] for a, b in pairs)
    assert all(truth.reach[a] >= truth.reach[b] for a, b in pairs if truth.ply[a] == truth.ply[b])
    assert sum(truth.reach[i] for i in truth.terminals()) == pytest.approx(1.0)


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
    assert not report.notes


@pytest.mark.parametrize("module", ["plain_minimax.py", "alphabeta_minimax.py"])
def test_plain_and_alpha_beta_minimax_are_right_as_far_as_the_time_limit_goes(
    module: str,
) -> None:
    report = check_cs50(CORPUS / module, time_limit=1.0, only=("utility", "minimax"))
    minimax = report.checks["minimax"]
    assert report.checks["utility"].ok
    assert minimax.wrong == 0
    assert 958 < minimax.checked < 5478  # terminal boards, then the fullest boards first
    assert 0 < report.coverage < 1
    assert not report.ok
    assert report.status == minimax.status == "incomplete"  # slow is not wrong
    assert report.exit_code == 3
    assert report.problems == (
        "stopped at the time limit (1 s) in minimax on " + report.problems[0].rpartition(" on ")[2],
    )


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
            "did not finish importing within 1 s",
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
    changes: list[tuple[str, str]], problem: str, tmp_path: Path
) -> None:
    path = variant(tmp_path, changes)
    report = check_cs50(path, time_limit=1.0, call_seconds=0.3, only=("initial_state", "player"))
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
    assert report.notes == ("prints while being graded (4,520 times; the first: 'thinking...')",)


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


def test_results_round_trip_the_json_schema() -> None:
    report = CheckReport(file="a.py", exercise="cs50", checks={}, coverage=1.0)
    data = report.as_json()
    assert list(data) == [
        "file",
        "exercise",
        "ok",
        "status",
        "coverage",
        "minimax_seconds_empty_board",
        "checks",
        "problems",
        "notes",
        "graded",
        "found",
        "renamed",
        "isolation",
    ]


def test_ttt_check_draws_the_counterexample_and_a_line_to_reproduce_it(tmp_path: Path) -> None:
    path = variant(tmp_path, BUGS["result-negative-index"][1])
    done = ttt("check", str(path), "--only", "result")
    assert done.returncode == 1, done.stderr
    assert "  result  FAIL" in done.stdout
    assert (
        "reproduce: result([[EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY]]"
        ", (-1, 0)) should raise an exception" in done.stdout
    )
    assert "---+---+---" in done.stdout
    contained = box.isolation()  # without a box, its one line
    assert done.stderr == ("" if contained.boxed else f"ttt check: {contained.describe}\n")


def test_a_class_graded_in_threads_takes_turns_outside_its_boxes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ttt check`` grades a class several submissions at a time, in threads. Their boxes
    run side by side, but their Python sides take turns: CPython 3.11 keeps the syntax-tree
    builder's depth for the whole interpreter, and two threads building trees at once (one
    reading a submission with ``ast.parse``, one loading a table, whose headers numpy reads
    with ``ast.literal_eval``) ended 5 of 32 runs of ``ttt check`` on two files with
    "internal error: SystemError: AST constructor recursion depth mismatch"."""
    counts = {"reading": 0, "boxes": 0}
    most = dict(counts)
    lock = threading.Lock()

    def counted(what: str, wait: float, real: Any) -> Any:
        def run(*args: Any) -> Any:
            with lock:
                counts[what] += 1
                most[what] = max(most[what], counts[what])
            time.sleep(wait)  # time for another thread to come in, if it may
            try:
                return real(*args)
            finally:
                with lock:
                    counts[what] -= 1

        return run

    monkeypatch.setattr(grading, "scan", counted("reading", 0.2, grading.scan))
    monkeypatch.setattr(grading, "run_job", counted("boxes", 0.5, grading.run_job))
    files = [variant(tmp_path, [], f"student{i}.py") for i in range(3)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        reports = list(pool.map(lambda f: check_path(f, only=("player",)), files))
    assert [r.ok for r in reports] == [True, True, True]
    assert most == {"reading": 1, "boxes": 3}


def test_a_class_is_graded_into_one_table_csv_and_json_lines(tmp_path: Path) -> None:
    good = variant(tmp_path, [], "alice.py")
    bad = variant(tmp_path, BUGS["player-inverted"][1], "bob.py")
    table = tmp_path / "grades.csv"
    done = ttt("check", str(good), str(bad), "--only", "player", "--csv", str(table), "--json")
    assert done.returncode == 1, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(Path(r["file"]).name, r["ok"]) for r in lines] == [
        ("alice.py", True),
        ("bob.py", False),
    ]
    assert lines[1]["checks"]["player"]["wrong"] == 4520
    rows = list(csv.DictReader(table.open()))
    assert [(Path(r["file"]).name, r["ok"], r["failed"]) for r in rows] == [
        ("alice.py", "True", ""),
        ("bob.py", "False", "player"),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere.py"], "'nowhere.py' does not exist"),
        (["notes.txt"], "notes.txt is not a Python file (.py)"),
        (["empty"], "no .py file in empty"),
        (["notes.txt", "--time-limit", "nan"], "is not a finite number"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    args: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "empty").mkdir()
    assert main(["check", *args]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.err.count("\n") == 1
    assert captured.out == ""


def test_without_bubblewrap_the_grade_says_so_or_is_refused(tmp_path: Path) -> None:
    path = variant(tmp_path, [])
    env = dict(os.environ, PATH=str(tmp_path), COLUMNS="100")  # no bwrap on the PATH
    command = [sys.executable, "-m", "tttlab", "check", str(path), "--only", "player"]
    done = subprocess.run([*command, "--json"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    line = "not contained by a box: bubblewrap (bwrap) is not installed"
    assert line in done.stderr
    assert done.stderr.count("\n") == 1
    assert line in json.loads(done.stdout)["isolation"]
    refused = subprocess.run(
        [*command, "--isolation", "required"], capture_output=True, text=True, env=env
    )
    assert refused.returncode == 2
    assert "--isolation required refuses to grade" in refused.stderr
    assert refused.stdout == ""
