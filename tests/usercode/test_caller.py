"""The box's caller (:mod:`tttlab.usercode.boxside.caller`) owns the clock and the results
channel: a call is timed from outside, its value's conversion included; a call that costs
the worker costs only the rest of its check; what the submission writes on any descriptor
is its own answer at most; and the grader's own failure is ``error``, never the student's
``FAIL``."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.usercode.test_course import course_folder
from tests.usercode.test_cs50 import variant
from tttlab.usercode import box, sandbox
from tttlab.usercode.boxside import caller
from tttlab.usercode.boxside.asking import AHEAD, Gone
from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises import EXERCISES
from tttlab.usercode.grading import check_cs50, check_path

CORPUS = Path(__file__).parent / "corpus"


@pytest.mark.parametrize(
    ("changes", "function"),
    [
        (  # the generator never ends: list() of it, the conversion, runs out of time
            [
                (
                    "    return {(i, j) for i in range(3)",
                    "    return iter(int, 1)\n    {(i, j) for i in range(3)",
                )
            ],
            "actions",
        ),
        (  # a value whose __repr__ never returns
            [
                (
                    "def player(board):\n",
                    "class _Endless:\n    def __repr__(self):\n        while True:\n"
                    "            pass\n\n\ndef player(board):\n    return _Endless()\n",
                )
            ],
            "player",
        ),
    ],
    ids=["endless-generator", "endless-repr"],
)
def test_a_value_that_never_turns_into_an_answer_fails_on_its_board(
    changes: list[tuple[str, str]], function: str, tmp_path: Path
) -> None:
    report = check_cs50(
        variant(tmp_path, changes), time_limit=60, call_seconds=0.5, only=(function, "winner")
    )
    assert report.status == "fail"
    assert report.problems == (
        f"{function} did not return within 0.5 s on .../.../...; its later boards were skipped",
    )
    check = report.checks[function]
    assert check.checked == 1
    assert check.example is not None
    assert check.example.got == "did not return within the per-call time limit"
    assert report.checks["winner"].ok  # a new worker took the next check


def test_a_file_that_forges_minimax_on_the_empty_board_and_exits_is_no_pass(
    tmp_path: Path,
) -> None:
    """The review's reproduction: on the empty board, minimax writes a "value" line and an
    end mark to every descriptor, then exits without computing anything."""
    forged = (
        "def minimax(board):\n",
        "def minimax(board):\n"
        "    if all(cell is EMPTY for row in board for cell in row):\n"
        "        import os\n"
        "        for fd in range(3, 64):\n"
        "            try:\n"
        '                os.write(fd, b\'["v",0,NaN]\\n{"end":"minimax","printed":0}\\n\')\n'
        "                os.write(fd, b'{\"done\":true}\\n')\n"
        "            except OSError:\n"
        "                pass\n"
        "        os._exit(0)\n",
    )
    report = check_cs50(variant(tmp_path, [forged]), only=("minimax",), time_limit=60)
    assert report.status == "fail"
    assert report.minimax_seconds_empty_board is None
    check = report.checks["minimax"]
    assert check.wrong == 1
    assert check.example is not None
    assert check.example.board == ".../.../..."
    text = json.dumps(report.as_json(), allow_nan=False)  # strict JSON
    assert "NaN" not in text


def test_a_value_table_kept_as_a_column_is_read_as_numbers(tmp_path: Path) -> None:
    column = ("V = np.zeros(env.num_states)", "V = np.zeros((env.num_states, 1))")
    folder = course_folder(tmp_path, [column])
    report = check_path(folder, only=("initialV_x", "initialV_o"))
    assert report.ok, report.as_json()


def test_a_file_too_deep_to_parse_fails_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "tictactoe.py"
    path.write_text("X = 'X'\nO = 'O'\nEMPTY = None\nx = " + "(" * 100_000 + ")" * 100_000 + "\n")
    report = check_cs50(path, only=("winner",), time_limit=60)
    assert report.status == "fail"
    assert len(report.problems) == 1
    assert report.problems[0].startswith("does not import:"), report.problems


def test_the_graders_own_failure_in_the_box_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that cannot do its part (here: asked for an exercise it does not know),
    before any of the student's code ran."""
    real = sandbox.Job.as_json

    def unknown(
        self: sandbox.Job, stage: str | None, processes: int, cpu: int | None = None
    ) -> dict[str, object]:
        return {**real(self, stage, processes, cpu), "exercise": "no-such-exercise"}

    monkeypatch.setattr(sandbox.Job, "as_json", unknown)
    report = check_cs50(CORPUS / "memo_minimax.py", only=("winner",))
    assert report.status == "error"
    assert report.exit_code == 4
    problem = report.problems[0]
    assert problem.startswith("could not be graded: the box's worker did not start: exit code 1")
    assert "KeyError: 'no-such-exercise'" in problem  # stderr's last line says why


def test_a_box_that_does_not_start_is_the_graders_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object) -> list[str]:
        return [sys.executable, "-c", "import sys; sys.exit('no Python for the box here')"]

    monkeypatch.setattr(box, "command", broken)
    report = check_cs50(CORPUS / "memo_minimax.py", only=("winner",))
    assert report.status == "error"
    assert report.problems == (
        "could not be graded: the box did not start: no Python for the box here",
    )


def test_the_callers_time_is_finite_and_its_own() -> None:
    report = check_cs50(CORPUS / "memo_minimax.py", only=("minimax",))
    assert report.ok
    seconds = report.minimax_seconds_empty_board
    assert seconds is not None
    assert math.isfinite(seconds)
    assert 0 <= seconds < report.seconds


def test_a_call_that_sleeps_is_stopped_at_its_limit(tmp_path: Path) -> None:
    """The limit counts the call's own time, the clock less its waits for a CPU: sleeping is
    its own, so the call is stopped after its 0.2 s, never at the time limit (60 s)."""
    changes = [("def player(board):\n", "def player(board):\n    time.sleep(120)\n")]
    path = variant(
        tmp_path,
        [("from functools import cache\n", "import time\nfrom functools import cache\n"), *changes],
    )
    report = check_cs50(path, time_limit=60, call_seconds=0.2, only=("player",))
    assert report.status == "fail"
    assert report.problems == (
        "player did not return within 0.2 s on .../.../...; its later boards were skipped",
    )


def test_a_call_past_its_limit_with_questions_sent_ahead_is_the_one_named(tmp_path: Path) -> None:
    """The questions of a check go ahead of their answers: the call that sleeps is still the
    one named (the first board with five marks, in the check's order, well past the first
    questions sent ahead), each call's limit counted from the answer before it, and every
    call before it right."""
    sleepy = (
        "def player(board):\n",
        "def player(board):\n"
        "    if sum(cell is not EMPTY for row in board for cell in row) == 5:\n"
        "        time.sleep(120)\n",
    )
    path = variant(
        tmp_path,
        [("from functools import cache\n", "import time\nfrom functools import cache\n"), sleepy],
    )
    report = check_cs50(path, time_limit=60, call_seconds=0.2, only=("player",))
    boards = [case.board for case in EXERCISES["cs50"].cases(exercise_truth())["player"]]
    first = next(b for b in boards if sum(c != "." for c in b) == 5)
    assert boards.index(first) > AHEAD
    assert report.status == "fail"
    player = report.checks["player"]
    assert (player.checked, player.wrong) == (boards.index(first) + 1, 1)  # it alone wrong
    shown = "/".join(first[r * 3 : r * 3 + 3] for r in range(3))
    assert report.problems == (
        f"player did not return within 0.2 s on {shown}; its later boards were skipped",
    )


class _Asked:
    """A worker that answers each case with itself, in order; sending ahead fails for every
    third question (no room), and the case ``gone`` costs it the worker."""

    def __init__(self, gone: int | None = None) -> None:
        self.gone, self.sent, self.tries, self.ended = gone, [], 0, False

    def send_ahead(self, question: dict[str, object]) -> str | None:
        self.tries += 1
        if self.tries % 3 == 0:
            return None
        self.sent.append(question["c"])
        return str(len(self.sent) - 1)

    def answer_to(self, nonce: str, seconds: float, allowance: int) -> dict[str, object]:
        case = self.sent[int(nonce)]
        if case == self.gone:
            raise Gone(["t"])
        return {"n": nonce, "o": ["v", case]}

    def ask(self, question: dict[str, object], seconds: float, allowance: int) -> object:
        self.sent.append(question["c"])
        return self.answer_to(str(len(self.sent) - 1), seconds, allowance)

    def end(self) -> None:
        self.ended = True


@pytest.mark.parametrize("gone", [None, 0, 7, 299])
def test_answers_come_in_the_cases_order_and_end_with_the_call_that_cost_the_worker(
    gone: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(caller, "end_the_rest", lambda: None)  # this process's children live
    asked = _Asked(gone)
    call = caller.Caller({}, "", None)  # type: ignore[arg-type]
    call.worker = asked  # type: ignore[assignment]
    cases = list(range(300))
    outcomes = list(call.ahead("winner", cases, 1.0, 4096))
    stop = len(cases) if gone is None else gone
    assert outcomes[:stop] == [["v", case] for case in cases[:stop]]
    if gone is None:
        assert len(outcomes) == len(cases)
        assert not asked.ended
        assert sorted(asked.sent) == cases  # each asked once, ahead or alone
    else:
        assert outcomes[stop:] == [["t"]]
        assert asked.ended
        assert call.worker is None


#: Files that tried to make the grader report its own failure (``error``) for theirs, or a
#: pass for a wrong answer (the review's reproductions); each is its own ``fail``.
NOT_THE_GRADERS = {
    "forge-through-the-box-init": """
import json, signal
def _forge():
    lines = [{"started": True}, {"import": ["v"], "missing": [], "skipped": [], "stubbed": []}]
    lines += [{"phase": "winner"}, *[["v", "."]] * 5478, {"end": "winner"}, {"done": True}]
    data = "".join(json.dumps(line) + "\\n" for line in lines).encode()
    for path in ("/proc/1/fd/1", f"/proc/{os.getppid()}/fd/1"):
        try:
            fd = os.open(path, os.O_WRONLY)
            while data:
                data = data[os.write(fd, data):]
        except OSError:
            pass
    os.kill(os.getppid(), signal.SIGKILL)
    os._exit(0)
_forge()
""",
    "an-internal-failure-forged": """
import json, sys
def _forged(board):
    frame = sys._getframe()
    while frame is not None and "nonce" not in frame.f_locals:
        frame = frame.f_back
    line = json.dumps({"n": frame.f_locals["nonce"] if frame else "", "internal": "boom"})
    for fd in range(3, 64):
        try:
            os.write(fd, (line + "\\n").encode())
        except OSError:
            pass
    os._exit(0)
""",
    # as root bwrap kept every capability in the box, and the box's root could open the
    # caller's descriptors through /proc (the review's reproduction): the box drops them all
    "every-descriptor-of-the-caller": """
for fd in os.listdir(f"/proc/{os.getppid()}/fd"):
    try:
        out = os.open(f"/proc/{os.getppid()}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
        os.write(out, b'{"done": true}\\n{"broken": "forged"}\\n')
    except OSError:
        pass
""",
    "the-caller-killed-at-import": """
import signal
os.kill(os.getppid(), signal.SIGKILL)
""",
    "too-many-stubs-said": """
import sys
sys.modules["_ttt_check.stubs"].STUBBED.extend(f"m{i}" for i in range(30))
""",
    "a-print-count-too-large-to-write": """
import sys
sys.stdout.writes = 10**4300 - 1
""",
}


@pytest.mark.parametrize("name", sorted(NOT_THE_GRADERS))
def test_what_a_submission_does_in_the_box_is_its_own_fail(name: str, tmp_path: Path) -> None:
    attack = NOT_THE_GRADERS[name]
    changes = [
        ("from functools import cache\n", f"from functools import cache\nimport os\n{attack}\n")
    ]
    if "_forged" in attack:
        changes.append(("def winner(board):\n", "def winner(board):\n    _forged(board)\n"))
    wrong = ("def winner(board):\n", "def winner(board):\n    return None\n")
    path = variant(tmp_path, [*changes, wrong] if "_forged" not in attack else changes)
    report = check_cs50(path, only=("winner", "player"), time_limit=60)
    assert report.status == "fail", report.as_json()
    assert report.exit_code == 1


def test_a_value_table_under_the_functions_name_is_its_fail(tmp_path: Path) -> None:
    """``initialV_x = np.zeros(...)``: not a function, a fail of its own (its truth value
    raised in the grader's worker, once read as the grader's failure)."""
    function = "def initialV_x(env, triples):\n    return initial_values(env, triples, env.x)\n"
    folder = course_folder(tmp_path, [(function, "initialV_x = np.zeros(3**9)\n")])
    report = check_path(folder, only=("initialV_x",))
    assert report.status == "fail", report.as_json()
    example = report.checks["initialV_x"].example
    assert example is not None
    assert "raised" in example.got, example.got  # its own error: an array is not called


def test_a_correct_file_with_long_messages_in_any_script_passes(tmp_path: Path) -> None:
    raised = (
        "raise ValueError(",
        "raise type('IllegalMoveOnTicTacToeBoard' * 3, (ValueError,), {})('\\U0001f6ab' * 120 + ",
    )
    report = check_cs50(variant(tmp_path, [raised]), only=("result",), time_limit=120)
    assert report.ok, report.as_json()


def test_a_worker_that_ends_while_its_child_holds_the_pipe_has_ended(tmp_path: Path) -> None:
    """Its child holds the pipe for two minutes: had the caller waited for the pipe to
    close, the time limit (20 s) would have come first."""
    ends = (
        "def player(board):\n",
        "def player(board):\n    if os.fork() == 0:\n        time.sleep(120)\n        os._exit(0)\n"
        "    os._exit(7)\n",
    )
    imports = ("from functools import cache\n", "from functools import cache\nimport os, time\n")
    report = check_cs50(variant(tmp_path, [imports, ends]), only=("player",), time_limit=20)
    assert report.problems == (
        "the process ended in player on .../.../... (exit code 7); its later boards were skipped",
    )


def _alive(name: str) -> list[int]:
    """The processes named ``name`` that have not ended (a zombie has)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            stat = (proc / "stat").read_text()
            if f"({name})" in stat and stat.rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(proc.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="no /proc")
def test_a_daemon_left_by_a_call_ends_with_its_worker_without_a_box_or_a_cgroup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``player`` leaves a daemon (a second fork in a session of its own, which a kill of
    the worker's session misses) and ends its worker: the caller, the daemon's subreaper,
    ends it with the worker, before the next check, with no box's PID namespace and no
    cgroup to end it. Had it escaped, it would live two minutes."""
    daemon = (
        "def player(board):\n",
        "def player(board):\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        "        if os.fork() == 0:\n"
        "            ctypes.CDLL(None).prctl(15, b'tttorphan', 0, 0, 0)\n"
        "            time.sleep(120)\n"
        "        os._exit(0)\n"
        "    os.wait()\n"
        "    os._exit(3)\n",
    )
    imports = (
        "from functools import cache\n",
        "from functools import cache\nimport ctypes, os, time\n",
    )
    monkeypatch.setattr(box.Cgroup, "make", classmethod(lambda cls, *_: None))
    report = check_cs50(
        variant(tmp_path, [imports, daemon]), only=("player", "winner"), isolation="off"
    )
    assert report.problems == (
        "the process ended in player on .../.../... (exit code 3); its later boards were skipped",
    )
    assert report.checks["winner"].ok  # graded by the next worker
    deadline = time.monotonic() + 30  # a process killed has gone within seconds
    while _alive("tttorphan") and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _alive("tttorphan")
    for pid in left:  # the test failed: end what it started
        os.kill(pid, signal.SIGKILL)
    assert left == []


def test_what_a_submission_raises_is_shown_never_obeyed(tmp_path: Path) -> None:
    escape = (
        "def winner(board):\n",
        "def winner(board):\n"
        "    raise type('\\x1b[31mBad', (Exception,), {})('\\x1b]0;x\\x07 \\udcff')\n",
    )
    report = check_cs50(variant(tmp_path, [escape]), only=("winner",))
    example = report.checks["winner"].example
    assert example is not None
    assert "\x1b" not in example.got
    assert "\x07" not in example.got
    assert "\\x1b[31mBad" in example.got, example.got


def test_a_long_first_print_is_cut_at_a_word_and_marked(tmp_path: Path) -> None:
    path = tmp_path / "tictactoe.py"
    said = "the training loop said: " + "epsilon " * 30
    path.write_text((CORPUS / "memo_minimax.py").read_text() + f"\nprint({said!r})\n")
    report = check_cs50(path, only=("winner",))
    assert report.ok, report.summary()
    first = "'the training loop said: " + "epsilon " * 6 + "…'"
    assert f"prints while being graded (1 times; the first: {first})" in report.notes
