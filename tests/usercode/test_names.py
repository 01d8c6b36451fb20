""":mod:`tttlab.usercode.names` reads a submission's files without running them: a file the
parser gives up on is still read for its definitions, whatever way the parser gives up; and
every exercise shape a submission defines is found."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tttlab.usercode.exercises import EXERCISES
from tttlab.usercode.names import Module, _read, detect, detect_all, scan, suggestions

HEAD = """\
def minimax(board):
    return None


class Board:
    def play(self):
        pass


"""


@pytest.mark.parametrize(
    "tail",
    [
        pytest.param("x = " + "(" * 200_000 + ")" * 200_000, id="parentheses"),
        pytest.param("x = " + "[" * 100_000 + "]" * 100_000, id="brackets"),
        pytest.param("x = " + "-" * 200_000 + "1", id="unary-memory-error"),
        pytest.param("x = 1" + "+1" * 200_000, id="binary-recursion-error"),
        pytest.param("x = a" + ".b" * 200_000, id="attributes-recursion-error"),
        pytest.param("def broken(:", id="syntax-error"),
        pytest.param("x = '\0'", id="null-byte"),
    ],
)
def test_a_file_the_parser_gives_up_on_is_read_for_its_definitions(
    tmp_path: Path, tail: str
) -> None:
    """Nested too deep, Python's parser ends in a MemoryError or a RecursionError rather
    than a SyntaxError (3.11: ``-`` 200,000 times, ``+1`` 200,000 times); read like a
    SyntaxError, the file's definitions are still found."""
    path = tmp_path / "deep.py"
    path.write_text(HEAD + tail + "\n")
    (module,) = scan(tmp_path, [path])
    assert module.name == "deep"
    assert "minimax" in module.functions
    assert "play" in module.classes["Board"]
    assert detect([module]) == "board"


def _defining(source: str) -> list[Module]:
    return [_read("student", textwrap.dedent(source))]


@pytest.mark.parametrize(
    ("source", "shapes"),
    [
        ("class Environment:\n    def get_state(self): ...\n", ["course"]),
        (
            "class Environment:\n    def get_state(self): ...\n"
            "class Agent:\n    def take_action(self, env): ...\n    def update(self, env): ...\n",
            ["course", "td-agent"],
        ),
        ("class Agent:\n    def take_action(self, env): ...\n", []),
        (
            "class Board:\n    def play(self, a, p): ...\n"
            "class Agent:\n    def sarsa(self, n): ...\n",
            ["board", "q-agent"],
        ),
        ("class Agent:\n    def qlearning(self, n): ...\n", ["q-agent"]),
        (
            "class Agent:\n    def qlearning(self, n): ...\n    def update(self, s): ...\n"
            "    def take_action(self, a): ...\n",
            ["q-agent"],
        ),
        ("def minimax(board): ...\n", ["cs50"]),
        ("P = [[0]]\nR = [0]\n", ["mdp"]),
        ("P = [[0]]\n", []),
    ],
)
def test_every_shape_a_submission_defines_is_found_in_grading_order(
    source: str, shapes: list[str]
) -> None:
    modules = _defining(source)
    assert detect_all(modules) == shapes
    assert detect(modules) == (shapes[0] if shapes else None)


def test_a_renamed_agent_is_found_under_the_students_name() -> None:
    modules = _defining("class Learner:\n    def qlearning(self, n): ...\n")
    assert detect_all(modules) == []
    assert detect_all(modules, {"Agent": "Learner"}) == ["q-agent"]


LEARNER = (
    "class {name}:\n"
    "    def setV(self, V): ...\n"
    "    def take_action(self, env): ...\n"
    "    def update(self, env): ...\n"
)
HUMAN = (
    "class {name}:\n"
    "    def set_symbol(self, sym): ...\n"
    "    def take_action(self, env): ...\n"
    "    def update(self, env): ...\n"
    "    def update_state_history(self, s): ...\n"
)
ENVIRONMENT = "class Environment:\n    def get_state(self): ...\n"


@pytest.mark.parametrize(
    ("source", "shapes"),
    [
        pytest.param(LEARNER.format(name="Player"), ["td-agent"], id="player"),
        pytest.param(
            ENVIRONMENT + LEARNER.format(name="Player"), ["course", "td-agent"], id="env-player"
        ),
        pytest.param(ENVIRONMENT + HUMAN.format(name="Player"), ["course"], id="env-human-player"),
        pytest.param(HUMAN.format(name="Player"), [], id="human-player"),
        pytest.param(LEARNER.format(name="TDLearner"), ["td-agent"], id="any-name-alone"),
        pytest.param(
            ENVIRONMENT + LEARNER.format(name="TDLearner"), ["course"], id="any-name-beside"
        ),
        pytest.param(LEARNER.format(name="HumanAgent"), [], id="a-human-by-name"),
    ],
)
def test_the_course_agent_under_another_name_is_found(source: str, shapes: list[str]) -> None:
    """``Player`` is the agent where it has a method a human player has not; a class of any
    other name with its methods makes a submission that is nothing else a td-agent, whose
    report suggests the name to paste."""
    assert detect_all(_defining(source)) == shapes


def test_a_class_with_the_agents_methods_is_suggested_whatever_its_name() -> None:
    modules = _defining(LEARNER.format(name="TDLearner") + HUMAN.format(name="Human"))
    spec = EXERCISES["td-agent"]
    assert suggestions(spec, ["Agent|Player"], modules) == [
        "Agent could be student.TDLearner: --name Agent=TDLearner"
    ]
    # a single method the exercise calls is no evidence: a similar name is still needed
    board = _defining("class Grid:\n    def play(self, a): ...\n")
    assert suggestions(EXERCISES["board"], ["Board"], board) == []


def test_a_function_called_with_its_seat_missing_is_never_suggested() -> None:
    """``initialize_V(env, triples, which_player='x')`` fits initialV_x's two arguments, but
    called so its seat is left at its default: wins would be counted for the wrong seat."""
    source = (
        "def initialize_V(env, triples, which_player='x'):\n    pass\n\n"
        "def init_x_vals(env, triples, verbose=False):\n    pass\n"
    )
    found = suggestions(EXERCISES["course"], ["initialV_x"], [_read("env", source)])
    assert found == ["initialV_x could be env.init_x_vals: --name initialV_x=init_x_vals"]
