"""Names as students write them (tttlab.usercode.spelling): camelCase for snake_case, ``X``
for ``x``, short forms, the environment class under another name, the agent as a subclass.
Each is used as a ``--name`` would be, with a note; two candidates are never guessed; and a
wrong answer behind a name found so still fails."""

from __future__ import annotations

import shutil
from pathlib import Path

from tttlab.usercode.grading import check_path
from tttlab.usercode.names import detect_all, scan
from tttlab.usercode.spelling import inherited, plain, read_sources, spelled

CORPUS = Path(__file__).parent / "corpus"

CAMEL = (
    ("get_state_hash_and_winner", "getStateHashAndWinner"),
    ("get_state", "getState"),
    ("game_over", "gameOver"),
    ("is_empty", "isEmpty"),
    ("set_symbol", "setSymbol"),
    ("take_action", "takeAction"),
    ("update_state_history", "updateStateHistory"),
    ("initialV_x", "initialVx"),
    ("initialV_o", "initialVo"),
    ("env.x", "env.X"),
    ("env.o", "env.O"),
    ("self.x", "self.X"),
    ("self.o", "self.O"),
    ("Environment()", "TickTackToe()"),
    ("class Environment", "class TickTackToe"),
    ("import Environment,", "import TickTackToe,"),
)


def _folder(tmp_path: Path, changes: tuple[tuple[str, str], ...] = CAMEL) -> Path:
    folder = tmp_path / "student"
    shutil.copytree(CORPUS / "course", folder)
    for file in folder.glob("*.py"):
        text = file.read_text()
        for old, new in changes:
            text = text.replace(old, new)
        file.write_text(text)
    return folder


def _spelt(tmp_path: Path, files: dict[str, str], given: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return spelled(read_sources(sorted(tmp_path.glob("*.py"))), given or {})


def test_plain_names_compare_without_case_or_underscores() -> None:
    assert plain("game_over") == plain("gameOver") == plain("GAME_OVER") == "gameover"
    assert plain("x") == plain("X")


def test_camel_case_names_and_capital_symbols_are_found(tmp_path: Path) -> None:
    found = spelled(read_sources(sorted(_folder(tmp_path).glob("*.py"))), {})
    assert found.renames["Environment"] == "TickTackToe"
    for ours, theirs in [
        ("x", "X"),
        ("o", "O"),
        ("get_state", "getState"),
        ("game_over", "gameOver"),
        ("take_action", "takeAction"),
        ("initialV_x", "initialVx"),
        ("get_state_hash_and_winner", "getStateHashAndWinner"),
    ]:
        assert found.renames[ours] == theirs, ours
    assert "Agent" not in found.renames  # the course's own name, as written
    assert not found.unsure


def test_short_forms_are_found(tmp_path: Path) -> None:
    found = _spelt(
        tmp_path,
        {
            "a.py": "class Learner:\n"
            "    def set_sym(self, s):\n        self.sym = s\n"
            "    def setVs(self, v):\n        self.V = v\n"
            "    def take_action(self, env):\n        return env\n"
            "    def update(self, env):\n        return env\n"
        },
    )
    assert found.renames == {"Agent": "Learner", "set_symbol": "set_sym", "setV": "setVs"}


def test_two_candidates_are_not_guessed(tmp_path: Path) -> None:
    found = _spelt(
        tmp_path,
        {
            "a.py": "class Environment:\n"
            "    def get_state(self):\n        return 0\n"
            "    def game_over(self):\n        return False\n"
            "    def __init__(self):\n"
            "        self.X = 1\n        self.O_ = 2\n        self.o_ = 3\n"
            "def playGame(p1, p2, env):\n    pass\n"
            "def play_Game(p1, p2, env):\n    pass\n"
        },
    )
    assert found.renames.get("x") == "X"
    assert "o" not in found.renames  # O_ and o_ both read as o
    assert any("o could be O_ or o_" in line for line in found.unsure), found.unsure
    assert "play_game" not in found.renames
    assert any("play_game could be playGame or play_Game" in line for line in found.unsure)


def test_given_names_always_win(tmp_path: Path) -> None:
    found = _spelt(
        tmp_path,
        {
            "a.py": "class A:\n    def takeAction(self, env):\n        return env\n"
            "    def update(self, e):\n        return e\n"
        },
        {"Agent": "A", "take_action": "takeAction"},
    )
    assert "Agent" not in found.renames
    assert "take_action" not in found.renames


def test_a_subclass_is_found_with_its_bases_methods(tmp_path: Path) -> None:
    files = {
        "agent.py": "class Agent:\n    def update(self, env):\n        return env\n\n"
        "class EpsAgent(Agent):\n    def take_action(self, env):\n        return env\n"
    }
    found = _spelt(tmp_path, files)
    assert found.renames["Agent"] == "EpsAgent"
    assert any("subclass of your Agent" in n for n in found.notes)
    paths = sorted(tmp_path.glob("*.py"))
    modules = inherited(scan(tmp_path, paths), read_sources(paths))
    assert "td-agent" in detect_all(modules, found.renames)
    assert "td-agent" not in detect_all(scan(tmp_path, paths), {})  # without the bases'


def test_another_agent_like_class_is_said_not_graded(tmp_path: Path) -> None:
    files = {
        "agent.py": "class Agent:\n    def update(self, env):\n        return env\n"
        "    def take_action(self, env):\n        return env\n\n"
        "class GreedyAgent(Agent):\n    def take_action(self, env):\n        return env\n"
    }
    found = _spelt(tmp_path, files)
    assert "Agent" not in found.renames
    assert any("not graded: your GreedyAgent" in u for u in found.unsure), found.unsure
    assert any("--name Agent=GreedyAgent" in u for u in found.unsure)


def test_a_course_folder_in_camel_case_passes_in_the_box(tmp_path: Path) -> None:
    report = check_path(_folder(tmp_path))
    assert report.exercise == "course+td-agent"
    assert report.ok, report.as_json()
    notes = " ".join(report.notes)
    assert "Environment: your class TickTackToe" in notes
    assert "game_over=gameOver" in notes
    assert "x=X" in notes


def test_a_wrong_environment_still_fails_behind_its_own_spelling(tmp_path: Path) -> None:
    changes = (*CAMEL, ("h += 3**k * code", "h += 3 ** (8 - k) * code"))
    report = check_path(_folder(tmp_path, changes), only=("get_state",))
    assert report.checks["get_state"].status == "fail", report.as_json()


def test_the_agent_as_a_subclass_is_graded_without_exercise(tmp_path: Path) -> None:
    folder = tmp_path / "student"
    shutil.copytree(CORPUS / "course", folder)
    agent = folder / "Agent.py"
    text = agent.read_text()
    start, end = text.index("    def take_action"), text.index("    def update(self")
    move = text[start:end]
    text = text[:start] + text[end:]
    text = text.replace(
        "class Agent:\n    def __init__(self, eps=0.1, alpha=0.5):\n"
        "        self.eps = eps\n        self.alpha = alpha\n        self.state_history = []\n",
        "class Agent:\n",
    )
    subclass = (
        "\n\nclass EpsAgent(Agent):\n    def __init__(self, eps=0.1, alpha=0.5):\n"
        "        self.eps = eps\n        self.alpha = alpha\n        self.state_history = []\n\n"
    )
    agent.write_text(text + subclass + move)
    report = check_path(folder, only=("take_action",))
    assert report.ok, report.as_json()
    assert any("your class EpsAgent" in n for n in report.notes), report.notes
    # a wrong move behind it still fails, named with --name and without --exercise
    agent.write_text(text + subclass + move.replace("if value > best:", "if value < best:"))
    named = check_path(folder, only=("take_action",), names=("Agent=EpsAgent",))
    assert named.checks["take_action"].status == "fail", named.as_json()


def test_another_exercises_class_is_never_taken_for_the_environment(tmp_path: Path) -> None:
    """The Q-learning text's Board with a get_state and an is_over of its own is the board
    exercise's, not the course's Environment under another name."""
    found = _spelt(
        tmp_path,
        {
            "q.py": "class Board:\n    def get_state(self):\n        return self.state\n"
            "    def is_over(self):\n        return self.winner is not None\n"
            "    def play(self, cell, mark):\n        self.state = cell\n"
        },
    )
    assert not {"Environment", "game_over"} & found.renames.keys()


def test_an_abstract_base_leaves_the_subclass_that_does_the_work(tmp_path: Path) -> None:
    files = {
        "agent.py": "class Agent:\n"
        "    def update_state_history(self, s):\n        self.state_history.append(s)\n"
        "    def take_action(self, env):\n        raise NotImplementedError\n"
        "    def update(self, env):\n        pass\n\n"
        "class TDAgent(Agent):\n"
        "    def take_action(self, env):\n        return env\n"
        "    def update(self, env):\n        return env\n\n"
        "class RandomPlayer:\n"
        "    def take_action(self, env):\n        return env\n"
        "    def update(self, env):\n        return env\n"
    }
    found = _spelt(tmp_path, files)
    assert found.renames["Agent"] == "TDAgent"
    assert not found.unsure  # a random opponent is no learning agent: nothing to say


def test_an_opponent_that_does_not_learn_is_not_said_ungraded(tmp_path: Path) -> None:
    files = {
        "agent.py": "class Agent:\n"
        "    def update_state_history(self, s):\n        self.state_history.append(s)\n"
        "    def take_action(self, env):\n        return env\n"
        "    def update(self, env):\n        return env\n\n"
        "class RandomPlayer:\n"
        "    def take_action(self, env):\n        return env\n"
        "    def update(self, env):\n        return env\n"
    }
    found = _spelt(tmp_path, files)
    assert found.renames == {}
    assert found.unsure == []
