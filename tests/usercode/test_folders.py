"""Course folders as students write them (the issue's four, rebuilt small from the course's
own files in tests/usercode/corpus/course): names found in packages and sub-folders and said
where, a stub for a module that is not installed, ``--name`` for the student's own names,
and a suggestion when a name is missing."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from tests.cli.helpers import ttt
from tttlab.errors import TttlabError
from tttlab.usercode.exercises import EXERCISES
from tttlab.usercode.grading import check_path
from tttlab.usercode.names import detect, module_of, python_files, renames_of, scan, suggestions

COURSE = Path(__file__).parent / "corpus" / "course"
ENVIRONMENT = (COURSE / "Environment.py").read_text()
CLASS, HELPERS = ENVIRONMENT.split("\ndef get_state_hash_and_winner", 1)
HELPERS = "def get_state_hash_and_winner" + HELPERS


def _write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def packaged(tmp_path: Path, init: bool = True) -> Path:
    """Classes in a package (without ``__init__.py``: a namespace package), helpers in
    state_util.py, the training in app.py."""
    agent = (COURSE / "Agent.py").read_text().replace("from Environment", "from .environment")
    app = (COURSE / "main.py").read_text()
    app = app.replace("from Agent import", "from model.agent import")
    app = app.replace(
        "from Environment import Environment, get_state_hash_and_winner, initialV_o, initialV_x",
        "from model.environment import Environment\n"
        "from state_util import get_state_hash_and_winner, initialV_o, initialV_x",
    )
    init_file = {"model/__init__.py": ""} if init else {}
    return _write(
        tmp_path / "packaged",
        {
            **init_file,
            "model/environment.py": CLASS,
            "model/agent.py": agent,
            "state_util.py": "import numpy as np\n\nfrom model.environment import LENGTH\n\n\n"
            + HELPERS,
            "app.py": app,
        },
    )


def with_tqdm(tmp_path: Path) -> Path:
    """The course's folder, whose training script shows progress with tqdm."""
    folder = tmp_path / "progress"
    shutil.copytree(COURSE, folder)
    main = (folder / "main.py").read_text()
    main = main.replace(
        "from Agent import Agent", "from tqdm import tqdm\n\nfrom Agent import Agent"
    )
    main = main.replace("for episode in range(100000):", "for episode in tqdm(range(100000)):")
    (folder / "main.py").write_text(main)
    return folder


def renamed(tmp_path: Path, tiles: bool = True, values: bool = True) -> Path:
    """The course's folder with the Environment's board in ``self.tiles`` (``tiles``), and
    its initial values named ``init_x_vals`` and ``init_o_vals`` (``values``)."""
    folder = tmp_path / f"renamed-{tiles}-{values}"
    shutil.copytree(COURSE, folder)
    for name in ("Environment.py", "Agent.py", "main.py"):
        text = (folder / name).read_text()
        if tiles:
            text = text.replace("self.board", "self.tiles").replace("env.board", "env.tiles")
        if values:
            text = text.replace("initialV_x", "init_x_vals").replace("initialV_o", "init_o_vals")
        (folder / name).write_text(text)
    return folder


@pytest.mark.parametrize("init", [True, False], ids=["package", "namespace"])
def test_a_package_and_a_helpers_module_are_found_and_said_where(
    tmp_path: Path, init: bool
) -> None:
    folder = packaged(tmp_path, init)
    # the Environment, and the Agent too; the namespace package's Environment alone (a
    # check or two of each: what is found does not depend on the checks that run)
    only = ("get_state", "initialV_x", *(["update"] if init else []))
    report = check_path(folder, exercise=None if init else "course", only=only)
    assert report.exercise == ("course+td-agent" if init else "course")
    assert report.ok, report.summary()
    agent = {"Agent": "model.agent.Agent"} if init else {}
    assert report.found == {
        "Environment": "model.environment.Environment",
        "get_state_hash_and_winner": "state_util.get_state_hash_and_winner",
        "initialV_x": "state_util.initialV_x",
        "initialV_o": "state_util.initialV_o",
        **agent,
    }
    assert set(report.graded) == {
        "app.py",
        *(["model/__init__.py"] if init else []),
        "model/agent.py",
        "model/environment.py",
        "state_util.py",
    }
    assert "found: Environment: model.environment.Environment" in report.summary()
    assert any("top-level code not run: app.py" in note for note in report.notes)


def test_a_module_that_is_not_installed_is_stood_in_for(tmp_path: Path) -> None:
    if importlib.util.find_spec("tqdm") is not None:
        pytest.skip("tqdm is installed here: the folder would import it for real")
    report = check_path(with_tqdm(tmp_path), exercise="course", only=("get_state",))
    assert report.ok, report.summary()
    assert any("stood in by stubs: tqdm" in note for note in report.notes), report.notes


def test_a_call_that_uses_a_stub_fails_with_its_own_error(tmp_path: Path) -> None:
    folder = tmp_path / "uses"
    shutil.copytree(COURSE, folder)
    source = ENVIRONMENT.replace(
        "import numpy as np", "import numpy as np\nimport no_such_plotting_lib as plt"
    )
    source = source.replace("        h = 0\n", "        plt.figure()\n        h = 0\n")
    (folder / "Environment.py").write_text(source)
    report = check_path(folder, only=("get_state", "winner"))
    assert report.checks["winner"].ok
    check = report.checks["get_state"]
    assert not check.ok
    assert check.example is not None
    assert "no_such_plotting_lib is not installed" in check.example.got


def test_the_students_own_names_are_mapped_with_name(tmp_path: Path) -> None:
    folder = renamed(tmp_path)
    environment = folder / "Environment.py"  # no helper for both seats to stand in
    environment.write_text(environment.read_text().replace("initial_values", "_values"))
    only = ("get_state", "initialV_x", "initialV_o")  # the checks that read the names
    plain = check_path(folder, exercise="course", only=only)
    assert not plain.ok
    assert "does not define: initialV_x, initialV_o or initialV_0" in plain.problems
    first, second = (p for p in plain.problems if " could be " in p)
    assert first.startswith("initialV_x could be Environment.init_x_vals")
    assert first.endswith(": --name initialV_x=init_x_vals")
    assert second.startswith("initialV_o could be Environment.init_o_vals")
    assert second.endswith(": --name initialV_o=init_o_vals")
    names = {"initialV_x": "init_x_vals", "initialV_o": "init_o_vals", "board": "tiles"}
    mapped = check_path(folder, exercise="course", names=names, only=only)
    assert mapped.ok, mapped.summary()
    assert mapped.renamed == names
    assert mapped.found["initialV_x"] == "Environment.init_x_vals"
    assert mapped.as_json()["renamed"] == names
    assert mapped.row()["renamed"] == "initialV_x=init_x_vals initialV_o=init_o_vals board=tiles"


def test_a_board_kept_in_tiles_passes_with_name_board(tmp_path: Path) -> None:
    folder = renamed(tmp_path, values=False)
    # the one attribute that holds a board is found as it, with a note
    plain = check_path(folder, exercise="course", only=("get_state", "winner"))
    assert plain.ok, plain.summary()
    assert any("its board env.tiles" in n for n in plain.notes), plain.notes
    mapped = check_path(folder, exercise="course", names={"board": "tiles"})  # every check
    assert mapped.ok, mapped.summary()


def test_name_on_the_command_line_in_json_and_csv(tmp_path: Path) -> None:
    folder = renamed(tmp_path)
    args = ["--name", "initialV_x=init_x_vals", "--name", "initialV_o=init_o_vals"]
    args += ["--name", "board=tiles", "--only", "get_state", "--only", "initialV_x"]
    result = ttt("check", str(folder), *args, "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["renamed"]["board"] == "tiles"
    assert report["ok"] is True
    table = ttt("check", str(folder), *args, "--format", "csv", timeout=300)
    assert table.returncode == 0, table.stderr
    header, row = table.stdout.splitlines()
    assert header.endswith(",renamed")
    assert row.endswith("initialV_x=init_x_vals initialV_o=init_o_vals board=tiles")
    for bad, words in [
        ("initialV_q=x", "not a name of the course or td-agent exercise"),
        ("board=not a name", "is not a Python name"),
        ("board", "EXERCISE_NAME=STUDENT_NAME"),
    ]:
        refused = ttt("check", str(folder), "--name", bad)
        assert refused.returncode == 2, refused.stderr
        assert words in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr


def test_a_board_class_under_another_name(tmp_path: Path) -> None:
    source = (Path(__file__).parent / "corpus" / "board" / "qlearning.py").read_text()
    assert "class Board" in source
    (tmp_path / "board.py").write_text(source.replace("Board", "TicTacToe"))
    assert check_path(tmp_path / "board.py").problems[0].startswith("defines none")
    report = check_path(tmp_path / "board.py", names={"Board": "TicTacToe"})
    assert report.exercise == "board"
    assert report.ok, report.summary()


def test_names_read_without_running(tmp_path: Path) -> None:
    assert module_of("model/environment.py") == "model.environment"
    assert module_of("model/__init__.py") == "model"
    assert module_of("app.py") == "app"
    modules = scan(COURSE, python_files(COURSE))
    assert [m.name for m in modules] == ["Agent", "Environment", "main"]
    assert detect(modules) == "course"
    course = EXERCISES["course"]
    folder = renamed(tmp_path)
    theirs = scan(folder, python_files(folder))
    # the same arity and a similar name: not initial_values (three arguments), not main's
    assert suggestions(course, ["get_state_hash_and_winner"], theirs) == []
    (line,) = suggestions(course, ["initialV_o|initialV_0"], theirs)
    assert line.startswith("initialV_o could be Environment.init_o_vals")
    with pytest.raises(TttlabError, match="given twice"):
        renames_of(["board=tiles", "board=cells"], course)
    assert renames_of({"Environment": "Env"}, course) == {"Environment": "Env"}


def beside(tmp_path: Path, folder: str, environment: str, agent: str = "agent") -> Path:
    """A repository whose script ``FOLDER/main.py`` imports the modules beside it, as
    Python finds them when it runs that script from the repository's root (its folder
    first on the path): the course's Environment in ``FOLDER/ENVIRONMENT.py``, its Agent
    in ``FOLDER/AGENT.py``."""
    repo = tmp_path / "repo"
    main = (COURSE / "main.py").read_text().replace("from Agent", f"from {agent}")
    return _write(
        repo,
        {
            f"{folder}/{environment}.py": ENVIRONMENT,
            f"{folder}/{agent}.py": (COURSE / "Agent.py")
            .read_text()
            .replace("from Environment", f"from {environment}"),
            f"{folder}/main.py": main.replace("from Environment", f"from {environment}"),
            "README.md": f"python {folder}/main.py\n",
        },
    )


# The reproduction: the module beside the script has its folder's name (the folder
# is a namespace package of the repository too); and a src/ folder checked from the root.
LAYOUTS = {"same-name": ("tick_tack_toe", "tick_tack_toe"), "src": ("src", "environment")}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_scripts_modules_beside_it_in_a_sub_folder_are_its_own(
    tmp_path: Path, layout: str
) -> None:
    folder, environment = LAYOUTS[layout]
    repo = beside(tmp_path, folder, environment)
    report = check_path(repo)
    assert report.exercise == "course+td-agent"
    assert not report.problems, report.problems
    assert report.ok, report.summary()
    assert all(check.ok and check.checked for check in report.checks.values()), report.summary()
    where = f"{folder}.{environment}"
    assert report.found["Environment"] == f"{where}.Environment"
    assert report.found["Agent"] == f"{folder}.agent.Agent"
    assert not any("stub" in note for note in report.notes), report.notes


@pytest.mark.parametrize(
    ("module", "right", "wrong", "fails"),
    [
        ("environment", "np.fliplr(b).diagonal()]", "]", "winner"),  # no anti-diagonal
        ("agent", "(target - self.V[prev])", "(self.V[prev] - target)", "update"),
    ],
)
def test_a_bug_in_a_module_beside_the_script_still_fails(
    tmp_path: Path, module: str, right: str, wrong: str, fails: str
) -> None:
    repo = beside(tmp_path, "tick_tack_toe", "tick_tack_toe")
    file = repo / "tick_tack_toe" / ("tick_tack_toe.py" if module == "environment" else "agent.py")
    assert right in file.read_text()
    file.write_text(file.read_text().replace(right, wrong))
    report = check_path(repo, only=(fails, "get_state", "take_action"))
    assert not report.problems, report.problems  # it imports, and is graded
    assert not report.ok
    assert not report.checks[fails].ok
    assert report.checks["get_state"].ok


def test_a_package_with_a_module_of_its_own_name_imported_from_the_root(tmp_path: Path) -> None:
    """``game/agent.py`` imports ``game.game``: not the module beside it (which is no
    package), but the package's, as when ``app.py`` at the root imports it."""
    repo = beside(tmp_path, "game", "game", agent="player")
    for name in ("player.py", "main.py"):
        text = (repo / "game" / name).read_text()
        text = text.replace("from game import", "from game.game import")
        (repo / "game" / name).write_text(text.replace("from player", "from game.player"))
    (repo / "game" / "__init__.py").write_text("")
    (repo / "app.py").write_text("from game.player import Agent\n")
    report = check_path(repo, only=("get_state", "update"))
    assert not report.problems, report.problems
    assert report.ok, report.summary()
    assert report.found["Environment"] == "game.game.Environment"
