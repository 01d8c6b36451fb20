"""Calls bound to the student's own signatures (tttlab.usercode.boxside.shapes.binding):
game_over's flag passed by its meaning (the course's name, the student's, a name that says
it, or none where the method takes none), a helper that serves both seats called once per
seat, and a call no signature takes as one problem line before any board. Each honest way
passes; a bug behind each adaptation still fails."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.usercode.helpers import failing_here, judged_here, write_edited
from tttlab.usercode.boxside.shapes.binding import FLAG, Unbound, flag_call, seat_helper
from tttlab.usercode.boxside.shapes.course import CourseChild
from tttlab.usercode.grading import check_path

CORPUS = Path(__file__).parent / "corpus"
COURSE_ENVIRONMENT = (CORPUS / "course" / "Environment.py").read_text()
COURSE_GAME_OVER = "def game_over(self, force_recalculate=False):\n"
COURSE_FLAG_TEST = "if not force_recalculate and self.ended:"


class _Env:
    """Methods with the signatures students write, to bind against."""

    def text(self, force_recalculate=False):  # type: ignore[no-untyped-def]
        return force_recalculate

    def renamed(self, force_check=False):  # type: ignore[no-untyped-def]
        return force_check

    def none(self):  # type: ignore[no-untyped-def]
        return "none"

    def keyword_only(self, *, recompute=False):  # type: ignore[no-untyped-def]
        return recompute

    def positional_only(self, force, /):  # type: ignore[no-untyped-def]
        return force

    def verbose(self, verbose=False):  # type: ignore[no-untyped-def]
        return verbose

    def needs_board(self, board):  # type: ignore[no-untyped-def]
        return board

    def two_flags(self, force=False, recheck=False):  # type: ignore[no-untyped-def]
        return force, recheck


def _called(name: str, theirs: str | None = None) -> object:
    method = getattr(_Env(), name)
    bound = flag_call(method, theirs)
    return method(*bound.args, **bound.kwargs), bound.how


def test_the_flag_is_passed_by_its_meaning() -> None:
    assert _called("text") == (True, "")
    assert _called("renamed") == (True, "flag:force_check")
    assert _called("keyword_only") == (True, "flag:recompute")
    assert _called("positional_only") == (True, "flag:force")
    assert _called("renamed", "force_check") == (True, "flag:force_check")


def test_a_method_without_the_flag_is_called_with_no_arguments() -> None:
    value, how = _called("none")
    assert value == "none"
    assert how == "noflag:game_over(self)" or how.startswith("noflag:game_over(")
    value, how = _called("verbose")  # a parameter that is no flag keeps its default
    assert value is False
    assert how.startswith("noflag:")


@pytest.mark.parametrize(
    ("name", "theirs", "words"),
    [
        ("needs_board", None, "it needs board"),
        ("two_flags", None, "it needs"),
        ("renamed", "force_now", "has no parameter force_now"),
    ],
)
def test_a_call_no_signature_takes_is_one_line(name: str, theirs: str | None, words: str) -> None:
    method = getattr(_Env(), name)
    if name == "two_flags":  # two names that say flag, none required: no way to choose
        bound = flag_call(method)
        assert bound.how.startswith("noflag:")
        return
    with pytest.raises(Unbound) as raised:
        flag_call(method, theirs)
    message = str(raised.value)
    assert words in message
    assert "\n" not in message
    assert f"--name {FLAG}=" in message


def _initial_value(env, sym, triples):  # type: ignore[no-untyped-def]
    return (env, sym, triples)


def _initialize_V(env, triples, which_player):  # type: ignore[no-untyped-def]  # noqa: N802
    return (env, which_player, triples)


def _init_values(triples, player, environment):  # type: ignore[no-untyped-def]
    return (environment, player, triples)


def _initial_board(env, triples):  # type: ignore[no-untyped-def]
    return (env, triples)


@pytest.mark.parametrize("helper", [_initial_value, _initialize_V, _init_values])
def test_a_helper_for_both_seats_is_found_and_called_by_its_parameters(helper: object) -> None:
    name = helper.__name__.lstrip("_")  # type: ignore[attr-defined]
    found = seat_helper([(name, helper), ("_initial_board", _initial_board)])  # type: ignore[list-item]
    assert found is not None
    assert found.call("E", "T", "S") == ("E", "S", "T")
    assert "sym" not in found.text("x") or "env.x" in found.text("x")


def test_two_helpers_or_none_are_not_guessed() -> None:
    assert seat_helper([("initial_board", _initial_board)]) is None
    both = [("initial_value", _initial_value), ("initialize_V", _initialize_V)]
    assert seat_helper(both) is None
    assert seat_helper([("make_table", _initial_value)]) is None  # its name says nothing


# Honest variants of the course's Environment, judged in this process: each passes.

FLAG_VARIANTS = {
    "force_check": [("force_recalculate", "force_check")],
    "recalculate": [("force_recalculate", "recalculate")],
    "keyword only": [
        (COURSE_GAME_OVER, "def game_over(self, *, refresh=False):\n"),
        (COURSE_FLAG_TEST, "if not refresh and self.ended:"),
    ],
    "always recounts": [
        (COURSE_GAME_OVER, "def game_over(self):\n"),
        ("        if not force_recalculate and self.ended:\n            return self.ended\n", ""),
        ("ended = env.game_over(force_recalculate=True)", "ended = env.game_over()"),
    ],
    "a flag and a verbose": [
        (COURSE_GAME_OVER, "def game_over(self, recompute=False, verbose=False):\n"),
        (COURSE_FLAG_TEST, "if not recompute and self.ended:"),
    ],
}


def _course(tmp_path: Path, changes: list[tuple[str, str]]) -> Path:
    return write_edited(COURSE_ENVIRONMENT, changes, tmp_path / "environment.py")


@pytest.mark.parametrize("variant", sorted(FLAG_VARIANTS))
def test_each_way_of_writing_game_overs_flag_passes(variant: str, tmp_path: Path) -> None:
    path = _course(tmp_path, FLAG_VARIANTS[variant])
    for check in ("game_over", "winner"):
        result = judged_here(path, "course", check)
        assert result.ok, (variant, check, result)


def test_a_wrong_game_over_still_fails_behind_its_renamed_flag(tmp_path: Path) -> None:
    # the flag found under the student's name, and the recount skipped when it is given
    path = _course(
        tmp_path,
        [
            ("force_recalculate", "force_check"),
            ("if not force_check and self.ended:", "if force_check:"),
        ],
    )
    failing_here(path, "course", "game_over", "False")


def test_a_game_over_that_needs_an_argument_is_one_problem_before_any_board(
    tmp_path: Path,
) -> None:
    path = _course(
        tmp_path,
        [(COURSE_GAME_OVER, "def game_over(self, board, force_recalculate=False):\n")],
    )
    from tests.usercode.helpers import load_module

    child = CourseChild(load_module(path, "needs_board"), {})
    prepared = child.prepare()
    assert prepared is not None
    assert "game_over(self, board, force_recalculate=False)" in prepared["problem"]
    report = check_path(path, only=("game_over", "winner"))
    assert report.status == "fail"
    assert any("it needs board" in p for p in report.problems), report.problems
    assert all(c.checked == 0 for c in report.checks.values()), report.as_json()


HELPER = """
def initial_value(env, sym, triples):
    V = np.zeros(env.num_states)
    for state, winner, ended in triples:
        V[state] = (1.0 if winner == sym else 0.0) if ended else 0.5
    return V
"""
SEAT_LAST = """
def initialize_V(env, state_winner_triples, which_player="x"):
    player = env.x if which_player in ("x", env.x) else env.o
    V = np.zeros(env.num_states)
    for state, winner, ended in state_winner_triples:
        if ended:
            V[state] = 1.0 if winner == player else 0.0
        else:
            V[state] = 0.5
    return V
"""


def _helper_only(text: str) -> list[tuple[str, str]]:
    start = COURSE_ENVIRONMENT.index("def initial_values")
    return [(COURSE_ENVIRONMENT[start:], text.lstrip("\n"))]


@pytest.mark.parametrize("text", [HELPER, SEAT_LAST], ids=["sym second", "seat last"])
def test_a_helper_for_both_seats_is_checked_once_per_seat(text: str, tmp_path: Path) -> None:
    path = _course(tmp_path, _helper_only(text))
    for check in ("initialV_x", "initialV_o"):
        assert judged_here(path, "course", check).ok, check


def test_a_wrong_helper_for_both_seats_still_fails(tmp_path: Path) -> None:
    wrong = HELPER.replace("1.0 if winner == sym else 0.0", "1.0 if winner is not None else 0.0")
    path = _course(tmp_path, _helper_only(wrong))
    failing_here(path, "course", "initialV_x", "expected 0")
    failing_here(path, "course", "initialV_o", "expected 0")


def test_the_three_reproductions_pass_in_the_box(tmp_path: Path) -> None:
    """The course folder with the flag renamed, the seat required by the constructor, and
    one helper for both seats: every check passes, each adaptation named in a note."""
    folder = tmp_path / "student"
    shutil.copytree(CORPUS / "course", folder)
    environment = folder / "Environment.py"
    source = environment.read_text().replace("force_recalculate", "force_check")
    start = source.index("def initial_values")
    environment.write_text(source[:start] + HELPER.lstrip("\n"))
    main = folder / "main.py"
    main.write_text(
        main.read_text()
        .replace("initialV_o, initialV_x", "initial_value")
        .replace("initialV_x(env, triples)", "initial_value(env, env.x, triples)")
        .replace("initialV_o(env, triples)", "initial_value(env, env.o, triples)")
    )
    agent = folder / "Agent.py"
    agent.write_text(
        agent.read_text()
        .replace(
            "    def __init__(self, eps=0.1, alpha=0.5):\n",
            "    def __init__(self, which_player, eps=0.1, alpha=0.5):\n"
            "        if which_player not in ('X', 'O'):\n"
            "            raise ValueError(\"which_player must be 'X' or 'O'\")\n"
            "        self.which_player = which_player\n",
        )
        .replace("    def set_symbol(self, sym):\n        self.sym = sym\n\n", "")
        .replace("self.sym", "self.mark(env)")
        .replace(
            "    def take_action(self, env):\n",
            "    def mark(self, env):\n"
            "        return env.x if self.which_player == 'X' else env.o\n\n"
            "    def take_action(self, env):\n",
        )
    )
    report = check_path(folder)
    assert report.ok, report.as_json()
    assert set(report.checks) >= {"game_over", "initialV_x", "initialV_o", "take_action"}
    notes = " ".join(report.notes)
    assert "passed as force_check=True" in notes
    assert "your initial_value, called once per seat" in notes
    assert "'X'/'O'" in notes
