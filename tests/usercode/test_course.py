"""``ttt check`` on the course's own shape (the Environment class of seeds 000/001), from a
folder whose main script trains and asks for input when imported; and the course's TD agent
judged exactly on its own Environment (the Board class of seed 003:
tests/usercode/test_board.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.usercode.helpers import failing, write_edited
from tttlab.errors import AgentError
from tttlab.game import Geometry, Player, state_space
from tttlab.unboxed import UserAgent, user_agent
from tttlab.usercode.grading import check_path

CORPUS = Path(__file__).parent / "corpus"
G3 = Geometry(3, 3, 3)


def course_folder(tmp_path: Path, changes: list[tuple[str, str]]) -> Path:
    folder = tmp_path / "student"
    shutil.copytree(CORPUS / "course", folder)
    write_edited((folder / "Environment.py").read_text(), changes, folder / "Environment.py")
    return folder


def test_a_course_folder_that_trains_and_asks_for_input_at_import_is_checked() -> None:
    report = check_path(CORPUS / "course")
    assert report.exercise == "course+td-agent"  # its Environment and its Agent
    assert report.ok, report.as_json()
    checked = {n: c.checked for n, c in report.checks.items()}
    assert checked == {
        "get_state": 3**9,
        "game_over": 5478,
        "winner": 5478,
        "reward": 2 * 5478,
        "get_state_hash_and_winner": 1,
        "initialV_x": 1,
        "initialV_o": 1,
        "update": checked["update"],
        "take_action": checked["take_action"],
    }
    assert checked["update"] > 0
    assert checked["take_action"] > 0
    loaded = [n for n in report.notes if n.startswith("loaded definitions only")]
    assert loaded, report.notes
    assert all("top-level code not run: main.py" in note for note in loaded)
    assert all("main.py lines 14-24" in note for note in loaded)  # the training loop
    # its 1.3 s of CPU time for every board's hash ran within the 5 s per-statement limit,
    # which counts the statement's own time: on a busy machine too
    assert not any("main.py line 7" in note for note in loaded), loaded
    # the game is played in main.py: no play_game
    assert "play_game not defined: play_game not checked" in report.notes


COURSE_BUGS = {
    "base-3 weights reversed": (
        "get_state",
        [("h += 3**k * code", "h += 3 ** (8 - k) * code")],
        "with env.board = X../.../...: env.get_state() should give 1, got 6561",
    ),
    "reward for a loss": (
        "reward",
        [("return 1 if self.winner == sym else 0", "return 1 if self.winner == sym else -1")],
        "env.reward(env.o) should give 0, got -1",
    ),
    "draws missed": (
        "game_over",
        [("self.ended = bool(np.all(b != 0))", "self.ended = False")],
        "should give True, with ended = True, got False, with ended = False",
    ),
    "initial value of a draw": (
        "initialV_x",
        [("(1.0 if winner == sym else 0.0) if ended else 0.5", "(1.0 if winner == sym else 0.5)")],
        "expected 0",
    ),
    "states left out": (
        "get_state_hash_and_winner",
        [("for v in (0, env.x, env.o):", "for v in (0, env.x):")],
        "missing",
    ),
    "values that are not numbers": (
        "initialV_x",
        [("    return initial_values(env, triples, env.x)", "    return np.full(3**9, np.nan)")],
        "is nan, expected",
    ),
    "a state past the last board": (
        "get_state_hash_and_winner",
        [("    return results\n", "    return results + [(3**9, None, False)] * (i + j == 0)\n")],
        "state 19683 is not a board's (0 to 19,682)",
    ),
}


@pytest.mark.parametrize("bug", sorted(COURSE_BUGS))
def test_each_course_check_fails_on_its_bug(bug: str, tmp_path: Path) -> None:
    check, changes, words = COURSE_BUGS[bug]
    failing(course_folder(tmp_path, changes), check, words, where="repro")


def test_a_dead_line_after_an_early_return_is_no_problem_when_the_checks_pass(
    tmp_path: Path,
) -> None:
    dead = course_folder(
        tmp_path,
        [
            (
                "    return self.ended\n        b =",
                "    return self.ended\n            print()\n        b =",
            )
        ],
    )
    report = check_path(dead, only=("game_over",))
    assert report.status == "pass", report.as_json()
    assert report.problems == ()


def test_the_course_listings_own_bugs_are_named_in_one_line(tmp_path: Path) -> None:
    typo = course_folder(
        tmp_path / "a",
        [
            (
                "def game_over(self, force_recalculate=False):",
                "def game_over(self, force_recalculate==False):",
            )
        ],
    )
    report = check_path(typo, only=("game_over",))
    assert (
        "`force_recalculate==False` in a default argument is a syntax error" in report.problems[0]
    )
    assert report.problems[0].startswith("Environment.py line ")
    assert not report.ok

    indented = course_folder(tmp_path / "b", [])
    source = (indented / "Environment.py").read_text()
    head, _, rest = source.partition("            return self.ended\n")
    body, _, tail = rest.partition("\n\n\ndef ")
    body = "".join("    " + line for line in body.splitlines(keepends=True))
    (indented / "Environment.py").write_text(
        f"{head}            return self.ended\n{body}\n\n\ndef {tail}"
    )
    report = check_path(indented, only=("game_over",))
    assert any("indented under its early `return` and never run" in p for p in report.problems)
    assert not report.checks["game_over"].ok


def test_the_course_agent_is_judged_on_its_own_environment() -> None:
    agent = user_agent(f"{CORPUS / 'course_agent.py'}:agent", G3)
    assert isinstance(agent, UserAgent)
    assert agent.convention == "course"
    assert agent.seats == (Player.X,)  # its symbol is set: the seat it was trained for
    space = state_space(G3)
    table = agent.policy_matrix(Player.X)
    values = agent.target.V
    rows = np.flatnonzero(~space.terminal & (space.to_move == 1))
    for i in rows[:300]:
        children = space.next[i]
        # the greedy move by hand: the first empty cell whose next state has the highest V
        scores = [values[space.ids[c]] if c >= 0 else -np.inf for c in children]
        assert np.argmax(table[i]) == int(np.argmax(scores))
    assert agent.target.eps == 0.1  # exploration is off only while it is asked


def test_a_course_agent_without_an_environment_is_refused(tmp_path: Path) -> None:
    (tmp_path / "lonely.py").write_text(
        "class Agent:\n    def take_action(self, env):\n        pass\n\nagent = Agent()\n"
    )
    with pytest.raises(AgentError, match="no Environment class beside the agent"):
        user_agent(f"{tmp_path / 'lonely.py'}:agent", G3)
