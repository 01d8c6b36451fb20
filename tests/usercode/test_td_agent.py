"""``ttt check`` on the course's TD(0) agent (seeds 000/001): the faithful agent and game loop
pass ``update``, ``take_action`` and ``play_game``; each classic bug fails on the check that
names the method holding it; the stand-in Environment behaves as the course's; and an
answer in any form never crashes the grader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.usercode.helpers import failing_here, load_module, passing, write_edited
from tttlab.usercode.boxside.loading import guarded
from tttlab.usercode.boxside.shapes.standin import SIZE, Environment, text
from tttlab.usercode.boxside.shapes.td_agent import TDAgentChild
from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises import EXERCISES, Case
from tttlab.usercode.exercises import td_agent_truth as tt
from tttlab.usercode.exercises.base import grid
from tttlab.usercode.grading import check_path

CORPUS = Path(__file__).parent / "corpus"
FAITHFUL = CORPUS / "td_agent" / "agent.py"
SOURCE = FAITHFUL.read_text()
SPEC = EXERCISES["td-agent"]


def _copy(tmp_path: Path, changes: list[tuple[str, str]]) -> Path:
    return write_edited(SOURCE, changes, tmp_path / "agent.py")


def test_the_faithful_agent_and_game_loop_pass_every_check() -> None:
    assert passing(FAITHFUL, "td-agent") == {
        "update": 60,
        "take_action": 273,
        "play_game": 10,
    }


#: Each classic bug: the check that must fail, the changes to the faithful source, and words
#: of the counterexample.
BUGS: dict[str, tuple[str, list[tuple[str, str]], str]] = {
    "the sweep run forwards": (
        "update",
        [("for prev in reversed(self.state_history):", "for prev in self.state_history:")],
        "expected",
    ),
    "the target not carried back": ("update", [("            target = value\n", "")], "V["),
    "alpha applied to the target": (
        "update",
        [
            (
                "self.V[prev] + self.alpha * (target - self.V[prev])",
                "self.V[prev] + self.alpha * target - self.V[prev]",
            )
        ],
        "V[",
    ),
    "the history kept between games": (
        "update",
        [
            (
                "            target = value\n        self.reset_history()",
                "            target = value",
            )
        ],
        "the history still holds 5 states after update, expected it emptied",
    ),
    "alpha stored as aplha": (
        "update",
        [("self.alpha = alpha", "self.aplha = alpha")],
        "raised AttributeError: 'Agent' object has no attribute 'alpha'",
    ),
    "the greedy move the worst one": (
        "take_action",
        [
            ("best_value = -1", "best_value = 2"),
            ("if self.V[state] > best_value", "if self.V[state] < best_value"),
        ],
        "whose next state has V",
    ),
    "a probed cell left marked": (
        "take_action",
        [("                        env.board[i, j] = 0\n", "")],
        "a probed cell left marked?",
    ),
    "eps reversed": (
        "take_action",
        [("if r < self.eps:", "if r > self.eps:")],
        "whose next state has V",
    ),
    "one player never learns": (
        "play_game",
        [("    p1.update(env)\n    p2.update(env)\n", "    p1.update(env)\n")],
        "returned without p2.update(env)",
    ),
    "update inside the loop": (
        "play_game",
        [
            (
                "        p2.update_state_history(state)\n    if draw:\n        env.draw_board()\n"
                "    p1.update(env)\n    p2.update(env)\n",
                "        p2.update_state_history(state)\n        p1.update(env)\n"
                "        p2.update(env)\n",
            )
        ],
        "p1.update(env) with its board",
    ),
    "the state recorded before the move": (
        "play_game",
        [
            (
                "        current_player.take_action(env)\n        state = env.get_state()\n",
                "        state = env.get_state()\n        current_player.take_action(env)\n",
            )
        ],
        "(it was given the state before the move)",
    ),
    # seen only by the statistical cases: the random move never picks the last empty cell
    "a random move that skips a cell": (
        "take_action",
        [("np.random.choice(len(possible_moves))", "np.random.choice(len(possible_moves) - 1)")],
        "chosen 0 times in 300",
    ),
    # ε = 0 and ε = 1 right, ε = 0.3 explores 0.09 of the time
    "exploration at eps squared": (
        "take_action",
        [("if r < self.eps:", "if r < self.eps**2:")],
        "the greedy cell",
    ),
}


@pytest.mark.parametrize(("check", "changes", "words"), list(BUGS.values()), ids=list(BUGS))
def test_each_classic_bug_fails_on_the_check_of_its_method(
    check: str, changes: list[tuple[str, str]], words: str, tmp_path: Path
) -> None:
    _, example = failing_here(_copy(tmp_path, changes), "td-agent", check, words)
    assert example.got in example.repro
    if check == "update":
        assert "random.Random(" in example.repro
        assert "alpha=" in example.repro


def test_the_statistical_cases_say_their_false_alarm_rate(tmp_path: Path) -> None:
    report = check_path(
        _copy(tmp_path, [("np.random.choice(len(possible_moves))", "0")]), only=("take_action",)
    )
    example = report.checks["take_action"].example
    assert example is not None
    assert "false-alarm rate at most 1e-06 per check" in example.expected
    cases = [c for c in SPEC.cases(exercise_truth())["take_action"] if c.arg.calls > 1]
    assert {c.arg.eps for c in cases} == {1.0, 0.3}
    # one test per empty cell at eps = 1, one per case in between: Bonferroni over them all
    tests = sum(c.board.count(".") if c.arg.eps == 1.0 else 1 for c in cases)
    assert all(c.arg.level == pytest.approx(1e-6 / tests) for c in cases)


def test_a_missing_attribute_read_in_update_is_named_in_one_line(tmp_path: Path) -> None:
    report = check_path(_copy(tmp_path, [("self.alpha = alpha", "self.aplha = alpha")]))
    assert report.checks["take_action"].ok
    assert report.checks["play_game"].ok
    assert any(
        "Agent.update reads self.alpha, which no method of Agent sets (it sets self.aplha)" in p
        for p in report.problems
    ), report.problems


def test_the_notebooks_names_and_the_students_own_names(tmp_path: Path) -> None:
    """The notebook's ``update_state_histories`` is fed; a history under another name is
    found (the one attribute that grows as states are fed); an Environment's board under
    another name is read through ``--name``; without play_game only its check is not run."""
    changes = [
        ("def update_state_history(self, s):", "def update_state_histories(self, s):"),
        ("self.state_history", "self.seen"),
        ("env.board", "env.tiles"),
        ("\n\ndef play_game(p1, p2, env, draw=False):", "\n\ndef unused(p1, p2, env, draw=False):"),
    ]
    path = _copy(tmp_path, changes)
    report = check_path(path, only=("update", "take_action"))
    assert report.checks["update"].ok, report.as_json()
    take = report.checks["take_action"].example
    assert take is not None
    assert take.got == (
        "raised AttributeError: 'Environment' has no attribute 'tiles' (use --name) "
        "(agent.py line 46)"  # where in the student's file, as every error it raises
    )
    report = check_path(path, names={"board": "tiles"})
    assert report.checks["update"].ok
    assert report.checks["take_action"].ok
    assert "play_game" not in report.checks  # not defined: not checked, and said so
    assert report.ok, report.as_json()
    assert "play_game not defined: play_game not checked" in report.notes
    only = check_path(path, only=("play_game",))
    assert "does not define: play_game" in only.problems  # the one check asked for


def test_a_history_that_cannot_be_found_asks_for_its_name(tmp_path: Path) -> None:
    """Kept where no attribute grows as states are fed (a list inside a dict), the history
    cannot be read: the counterexample asks for its name."""
    changes = [
        ("self.state_history = []\n\n    def setV", "self.memory = {'states': []}\n\n    def setV"),
        ("self.state_history.append(s)", "self.memory['states'].append(s)"),
        ("in reversed(self.state_history)", "in reversed(self.memory['states'])"),
        (
            "    def reset_history(self):\n        self.state_history = []",
            "    def reset_history(self):\n        self.memory['states'] = []",
        ),
    ]
    _, example = failing_here(
        _copy(tmp_path, changes), "td-agent", "update", "--name state_history=YOURS"
    )
    assert "agent.state_history cannot be read after update" in example.got


# the box's side, in this process


def _run(target: Any, *args: Any) -> list[Any]:
    outcome: list[Any] = guarded(target, args)
    return outcome


@pytest.mark.parametrize("numpy", [True, False])
def test_the_stand_in_behaves_as_the_course_environment(numpy: bool) -> None:
    course = load_module(CORPUS / "course" / "Environment.py", "course_environment")
    child = TDAgentChild(None)
    if not numpy:
        child.np = None
    truth = exercise_truth()
    for board in truth.boards:
        ours, theirs = child.env(board), course.Environment()
        for k, c in enumerate(board):
            theirs.board[k // 3, k % 3] = {"X": -1, "O": 1, ".": 0}[c]
        assert text(ours) == board
        assert ours.get_state() == theirs.get_state() == tt.state_id(board)
        assert ours.game_over() == theirs.game_over(force_recalculate=True)
        assert (ours.winner, ours.ended) == (theirs.winner, theirs.ended)
        assert [ours.reward(s) for s in (-1, 1)] == [theirs.reward(s) for s in (-1, 1)]
        assert [ours.is_empty(k // 3, k % 3) for k in range(9)] == [c == "." for c in board]
        assert ours.board[1][2] == ours.board[1, 2]
    assert Environment(None).num_states == SIZE


def test_the_box_side_without_numpy_grades_the_faithful_agent_right() -> None:
    child = TDAgentChild(load_module(FAITHFUL, "faithful_agent"))
    child.np = None
    truth = exercise_truth()
    cases = SPEC.cases(truth)
    for function in ("update", "take_action", "play_game"):
        for case in cases[function][:: 7 if function == "take_action" else 3]:
            outcome = child.call(function, SPEC.payload(function, case), _run)
            assert SPEC.well_formed(function, outcome[1]), outcome
            assert SPEC.right(function, case, outcome, truth), (function, case, outcome)


def test_an_update_that_changes_nothing_is_wrong_in_the_entry_it_left(tmp_path: Path) -> None:
    lazy = _copy(tmp_path, [("        reward = env.reward(self.sym)\n", "        return\n")])
    child = TDAgentChild(load_module(lazy, "lazy_agent"))
    truth = exercise_truth()
    case = SPEC.cases(truth)["update"][0]
    outcome = child.call("update", SPEC.payload("update", case), _run)
    assert outcome[:2] == ["v", [[], 0, 5, ""]]
    assert not SPEC.right("update", case, outcome, truth)
    got = SPEC.got("update", outcome, case, truth)
    (state, want), *_ = tt.sweep(case.arg, truth)[0]
    assert got == (
        f"V[{state}] ({grid(tt.board_of(state))}) = {tt.table(case.arg.seed)[state]:.6g}, "
        f"expected {want:.6g}"
    )


# answers in any form


FORGED = {
    "update": [
        [[[SIZE + 5, 0.5], [-3, float("nan")]], 2, 0, ""],
        [[], 99, 0, "float16"],
        [[], 0, ["g", "x"], ""],
    ],
    "take_action": [
        [[2, -1, 0, 0, 0, 0, 0, 0, 0], 0, "", ""],
        [[0] * 9, 1, "", "float32"],
        [[0] * 9, 1, "?????????", ""],
        [[9] * 9, 0, "", ""],
    ],
    "play_game": [
        [[["a", 1, "." * 9, 42]], False],
        [[["a", 2, "." * 9, 0]], True],
        [[["h", 1, "?" * 9, ["g", "x"]], ["u", 2, "X" * 9, 0]], False],
        [[], True],
    ],
}


@pytest.mark.parametrize("function", sorted(FORGED))
def test_an_answer_in_any_form_is_wrong_and_worded_never_a_crash(function: str) -> None:
    truth = exercise_truth()
    case: Case = SPEC.cases(truth)[function][0]
    for value in FORGED[function]:
        assert SPEC.well_formed(function, value)
        outcome = ["v", value]
        assert not SPEC.right(function, case, outcome, truth)
        assert SPEC.got(function, outcome, case, truth)
        SPEC.board_shown(function, case, outcome)


def test_a_play_game_whose_draw_argument_is_required_is_called_with_draw_false(
    tmp_path: Path,
) -> None:
    path = _copy(
        tmp_path, [("def play_game(p1, p2, env, draw=False):", "def play_game(p1, p2, env, draw):")]
    )
    report = check_path(path, only=("play_game",))
    assert report.ok, report.as_json()


def test_play_game_may_pass_what_the_students_own_agent_takes(tmp_path: Path) -> None:
    """``take_action(env, show_values=False)``: the recording agents take the keyword the
    student's own agent takes; one the student's agent refuses is still the loop's bug."""
    from tests.usercode.helpers import judged_here

    takes = [
        ("def take_action(self, env):", "def take_action(self, env, show_values=False):"),
        ("current_player.take_action(env)", "current_player.take_action(env, show_values=False)"),
    ]
    path = write_edited(SOURCE, takes, tmp_path / "shown.py")
    assert judged_here(path, "td-agent", "play_game").ok
    refused = [
        takes[0],
        ("current_player.take_action(env)", "current_player.take_action(env, verbose=1)"),
    ]
    wrong = write_edited(SOURCE, refused, tmp_path / "refused.py")
    failing_here(wrong, "td-agent", "play_game", "TypeError")
