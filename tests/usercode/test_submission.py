"""A submission as the grader reads it (:mod:`tttlab.usercode.submission`): a file graded
with the modules beside it that it imports (star imports keep every name, as Python's do),
never a classmate's file; notebooks through every path a ``.py`` takes, in their box, with
every place a report names given as the notebook's cell and line; a notebook that is no
notebook the student's failure in one line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import ttt
from tests.usercode.helpers import edited
from tests.usercode.test_formats import AUTOGRADER
from tests.usercode.test_notebooks import _cell, notebook_text
from tttlab.usercode.grading import check_path
from tttlab.usercode.notebooks import Places
from tttlab.usercode.submission import Staged, code_files, staged

CORPUS = Path(__file__).parent / "corpus"
AGENT = (CORPUS / "td_agent" / "agent.py").read_text()
#: The faithful TD agent with its helpers in a module of their own, star-imported.
HELPED = edited(AGENT, [("import numpy as np\n\nLENGTH = 3\n", "from helpers import *\n")])


def _write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def agent_notebook(source: str = AGENT, extra: tuple[str, ...] = ()) -> str:
    """The TD agent as a student's notebook: a title, the imports with IPython's magics,
    the class and the game loop in cells of their own, ``extra`` cells after them."""
    head, rest = source.split("class Agent:", 1)
    agent, game = ("class Agent:" + rest).split("def play_game", 1)
    imports = "%matplotlib inline\n!pip install numpy\n" + head.split('"""', 2)[2].strip()
    cells = [
        _cell("# TD(0)", "markdown"),
        _cell(imports),
        _cell(agent),
        _cell("def play_game" + game),
    ]
    return notebook_text([*cells, *(_cell(s) for s in extra)])


def test_a_file_brings_the_modules_it_star_imports_and_keeps_every_name(tmp_path: Path) -> None:
    # the issue's reproduction: a helper that imports numpy, star-imported, and a second
    # star import beside it (its names kept too)
    folder = _write(
        tmp_path / "student",
        {
            "helpers.py": "import numpy as np\nLENGTH = 3\n",
            "more.py": "from helpers import np\n\ndef zeros():\n    return np.zeros(1)\n",
            "agent.py": HELPED.replace(
                "from helpers import *\n", "from helpers import *\nfrom more import *\n"
            ),
        },
    )
    report = check_path(folder / "agent.py", only=("update", "take_action"))
    assert report.ok, report.summary()
    assert "graded with the modules beside it that it imports: helpers.py, more.py" in report.notes
    assert not any("stubs" in note for note in report.notes)


def test_a_classmates_file_is_never_brought_into_another_box(tmp_path: Path) -> None:
    folder = _write(
        tmp_path / "class", {"helpers.py": "import numpy as np\nLENGTH = 3\n", "alice.py": HELPED}
    )
    with staged(folder / "alice.py", others=[folder / "helpers.py"]) as submission:
        assert submission.path == folder / "alice.py"  # alone: nothing staged beside it
    report = check_path(folder / "alice.py", only=("take_action",), others=[folder / "helpers.py"])
    assert report.status == "fail"
    assert any("stood in by stubs: helpers" in note for note in report.notes)


def test_a_classmates_folder_and_a_classmates_module_name_stay_out(tmp_path: Path) -> None:
    # bob's folder is graded in the same run; bob.py (the script of bob's notebook) too
    folder = _write(
        tmp_path / "class",
        {
            "bob/helpers.py": "LENGTH = 3\n",
            "bob.py": "LENGTH = 3\n",
            "helpers.py": "import numpy as np\nLENGTH = 3\n",
            "alice.py": HELPED.replace(
                "from helpers import *\n", "from helpers import *\nimport bob\n"
            ),
        },
    )
    others = [folder / "bob", folder / "bob.ipynb"]
    with staged(folder / "alice.py", others=others) as submission:
        assert submission.root is not None
        copied = sorted(str(p.relative_to(submission.root)) for p in code_files(submission.root))
    assert copied == ["alice.py", "helpers.py"]


def test_a_module_imported_by_name_and_a_package_come_along(tmp_path: Path) -> None:
    imports = "import numpy as np\nimport sizes\nfrom util.pick import first\n"
    loops = {f"for {v} in range(LENGTH):": f"for {v} in range(sizes.LENGTH):" for v in "ij"}
    agent = edited(AGENT, [("import numpy as np\n\nLENGTH = 3\n", imports), *loops.items()])
    folder = _write(
        tmp_path / "student",
        {
            "sizes.py": "LENGTH = 3\n",
            "util/__init__.py": "",
            "util/pick.py": "def first(x):\n    return x[0]\n",
            "agent.py": agent,
            "unrelated.py": "raise SystemExit\n",
        },
    )
    with staged(folder / "agent.py") as submission:
        copied = sorted(str(p.relative_to(submission.root)) for p in code_files(submission.root))
    assert copied == ["agent.py", "sizes.py", "util/__init__.py", "util/pick.py"]
    report = check_path(folder / "agent.py", only=("take_action",))
    assert report.ok, report.summary()


def test_a_notebook_is_graded_in_its_box_and_said_by_cell_and_line(tmp_path: Path) -> None:
    path = tmp_path / "td.ipynb"
    path.write_text(agent_notebook(extra=("for game in range(10):\n    pass",)))
    report = check_path(path)
    assert report.ok, report.summary()
    assert report.file == str(path)
    notes = "\n".join(report.notes)
    assert "loaded definitions only; top-level code not run: td.ipynb cell 5, lines 1-2" in notes
    assert "td.ipynb: read as a module of its 4 code cells" in notes
    assert "cell 2, line 1 (%matplotlib inline): left out" in notes
    assert "cell 2, line 2 (!pip install numpy): a shell command: never run" in notes
    assert "td.py" not in report.summary()


def test_a_notebooks_wrong_update_fails_as_its_script_does(tmp_path: Path) -> None:
    wrong = edited(AGENT, [("in reversed(self.state_history)", "in self.state_history")])
    path = tmp_path / "td.ipynb"
    path.write_text(agent_notebook(wrong))
    script = tmp_path / "td_script.py"
    script.write_text(wrong)
    graded = [check_path(p, only=("update",)) for p in (path, script)]
    assert [r.status for r in graded] == ["fail", "fail"]
    shown = [r.checks["update"].example for r in graded]
    assert shown[0] is not None
    assert shown[1] is not None
    assert (shown[0].got, shown[0].expected) == (shown[1].got, shown[1].expected)


def test_a_folder_with_notebooks_and_run_runs_the_helper(tmp_path: Path) -> None:
    notebook = json.loads(agent_notebook(HELPED))
    notebook["cells"][1]["source"] = "%run helpers.py"
    folder = _write(
        tmp_path / "course",
        {"helpers.py": "import numpy as np\nLENGTH = 3\n", "Agent.ipynb": json.dumps(notebook)},
    )
    for path in (folder, folder / "Agent.ipynb"):
        report = check_path(path, only=("update",))
        assert report.ok, report.summary()
        assert any(
            "(%run helpers.py): brings in every name of helpers.py, as %run does" in n
            for n in report.notes
        )
    assert check_path(folder, only=("update",)).graded == ("Agent.ipynb", "helpers.py")


def test_a_notebook_that_is_not_one_fails_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "work.ipynb"
    path.write_text('{"cells": [')
    report = check_path(path)
    assert report.status == "fail"
    assert report.problems == (
        "work.ipynb is not a notebook nbformat can read: Expecting value: line 1 column 12 "
        "(char 11)",
    )


def test_in_a_folder_a_broken_notebook_is_left_out_with_a_note(tmp_path: Path) -> None:
    folder = _write(tmp_path / "student", {"scratch.ipynb": "{", "agent.py": AGENT})
    report = check_path(folder, only=("update",))
    assert report.ok, report.summary()
    assert any(
        n.startswith("scratch.ipynb is not a notebook") and n.endswith("left out")
        for n in report.notes
    )


def test_a_notebook_beside_its_own_script_leaves_the_script_graded(tmp_path: Path) -> None:
    folder = _write(tmp_path / "student", {"agent.py": AGENT, "agent.ipynb": '{"cells": ['})
    report = check_path(folder, only=("update",))
    assert report.ok, report.summary()
    assert "agent.ipynb left out: agent.py is the same module, and is graded" in report.notes


def test_the_command_line_grades_notebooks_in_every_format(tmp_path: Path) -> None:
    path = tmp_path / "td.ipynb"
    path.write_text(agent_notebook())
    broken = tmp_path / "broken.ipynb"
    broken.write_text("[]")
    done = ttt("check", str(path), str(broken), "--only", "update", "--format", "gradescope")
    assert done.returncode == 1, done.stderr
    results = json.loads(done.stdout)
    names = [test["name"] for test in results["tests"]]
    assert any("td.ipynb" in name for name in names), names
    assert "broken.ipynb is not a notebook nbformat can read" in results["output"]
    one = ttt("check", str(path), "--only", "update", "--json")
    assert one.returncode == 0, one.stderr
    assert json.loads(one.stdout)["file"] == str(path)
    refused = ttt("check", str(tmp_path / "nothing.txt"))
    assert refused.returncode == 2


def test_the_staged_names_are_said_back_in_the_students_terms() -> None:
    said = Staged(
        Path("/class/ann/work.ipynb"),
        Path("/tmp/s/submission/work.py"),
        copy=Path("/tmp/s/submission"),
    )
    said.notebooks["work.py"] = ("work.ipynb", Places(((3, 1), (3, 2), (4, 1)), "cell"))
    assert said.said("work.py line 2") == "work.ipynb cell 3, line 2"
    assert (
        said.said("work.py lines 1-2, homework.py line 1")
        == "work.ipynb cell 3, lines 1-2, homework.py line 1"
    )
    assert said.said("(work.py, line 3)") == "(work.ipynb cell 4, line 1)"
    assert said.said("in /tmp/s/submission/work.py") == "in /class/ann/work.ipynb"
    # a staged name inside another's is never replaced first: the longest goes first
    said.notebooks["my_work.py"] = ("my_work.ipynb", Places(((1, 1),), "cell"))
    assert said.said("my_work.py line 1; work.py line 1") == (
        "my_work.ipynb cell 1, line 1; work.ipynb cell 3, line 1"
    )


def test_a_file_with_nothing_beside_it_is_not_staged(tmp_path: Path) -> None:
    path = _write(tmp_path, {"agent.py": AGENT}) / "agent.py"
    with staged(path) as submission:
        assert submission.path == path
        assert submission.root is None


def test_the_gradescope_autograder_grades_a_notebook_submission(tmp_path: Path) -> None:
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "td.ipynb").write_text(agent_notebook())
    shutil.copy(AUTOGRADER / "run_autograder", root / "run_autograder")
    ttt_command = str(Path(sys.executable).with_name("ttt"))
    env = {**os.environ, "AUTOGRADER": str(root), "TTT": ttt_command}
    env["TTT_CHECK_ARGS"] = "--only update --only play_game"
    done = subprocess.run(["bash", str(root / "run_autograder")], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert [(t["name"], t["status"]) for t in results["tests"]] == [
        ("update", "passed"),
        ("play_game", "passed"),
    ]
    assert "td.ipynb: read as a module of its 3 code cells" in results["output"]


def test_what_a_notebooks_code_raises_names_its_cell_and_line(tmp_path: Path) -> None:
    wrong = edited(AGENT, [("r = np.random.rand()", "r = np.random.rnd()")])
    path = tmp_path / "td.ipynb"
    path.write_text(agent_notebook(wrong))
    cell = json.loads(path.read_text())["cells"][2]["source"]
    line = cell.splitlines().index("        r = np.random.rnd()") + 1
    report = check_path(path, only=("take_action",))
    example = report.checks["take_action"].example
    assert example is not None
    assert example.got.endswith(f"has no attribute 'rnd' (td.ipynb cell 3, line {line})")


@pytest.mark.parametrize("second", [False, True], ids=["one-star", "two-stars"])
def test_the_issues_two_files_import_as_python_imports_them(tmp_path: Path, second: bool) -> None:
    """helpers.py holds ``import numpy as np``; main.py star-imports it (and another module
    beside it) and builds P and R with ``np``: it imports, and is graded on its tables."""
    more = "from more import *\n" if second else ""
    tables = "P = np.zeros((3, 3, 9))\nR = np.zeros((3, 9))\n"
    folder = _write(
        tmp_path / "mdp",
        {
            "helpers.py": "import numpy as np\n",
            "more.py": "def other():\n    return 1\n",
            "main.py": f"from helpers import *\n{more}{tables}",
        },
    )
    report = check_path(folder / "main.py", exercise="mdp", only=("P",))
    assert report.status == "fail"
    assert not any("does not import" in p for p in report.problems), report.problems
    assert report.problems == ("does not define: state_id_lkt",)


def test_a_notebook_named_as_no_module_is_is_graded_and_said_by_its_name(tmp_path: Path) -> None:
    # "Assignment 2.1": Python would read the dot as a package's; %run of it without .py
    folder = _write(
        tmp_path / "student",
        {"Assignment 2.1.ipynb": agent_notebook(), "main.ipynb": notebook_text([])},
    )
    book = json.loads(agent_notebook(HELPED))
    book["cells"][1]["source"] = "%run helpers"
    (folder / "main.ipynb").write_text(json.dumps(book))
    (folder / "helpers.py").write_text("import numpy as np\nLENGTH = 3\n")
    report = check_path(folder / "Assignment 2.1.ipynb", only=("update",))
    assert report.ok, report.summary()
    assert any(n.startswith("Assignment 2.1.ipynb: read as a module") for n in report.notes)
    helped = check_path(folder / "main.ipynb", only=("update",))
    assert helped.ok, helped.summary()
    said = "(%run helpers): brings in every name of helpers, as %run does"
    assert any(said in n for n in helped.notes)


def test_a_notebook_that_brings_in_its_agent_is_graded_as_the_agent(tmp_path: Path) -> None:
    # the notebook defines nothing itself: the agent comes from a module it star-imports
    folder = _write(
        tmp_path / "student",
        {"agent.py": AGENT, "train.ipynb": notebook_text([_cell("from agent import *")])},
    )
    report = check_path(folder / "train.ipynb", only=("update",))
    assert report.ok, report.summary()
    assert report.exercise == "td-agent"
