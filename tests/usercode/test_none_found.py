"""Why a submission defines none of the exercises (:mod:`tttlab.usercode.none_found`): a
notebook's cell that is not Python, left out with everything it defines, is named in the
problem's own line, never in a note alone."""

from __future__ import annotations

from pathlib import Path

from tests.usercode.test_notebooks import _cell, notebook_text
from tests.usercode.test_submission import AGENT
from tttlab.usercode.grading import check_path
from tttlab.usercode.none_found import none_found, unparsed_cells

BROKEN = AGENT.replace("def update(self, env):", "def update(self, env)")


def test_a_cell_that_is_not_python_is_the_problem_when_nothing_is_found(tmp_path: Path) -> None:
    notebook = tmp_path / "td.ipynb"
    notebook.write_text(notebook_text([_cell("# TD", "markdown"), _cell(BROKEN)]))
    line = BROKEN.splitlines().index("    def update(self, env)") + 1
    assert unparsed_cells(notebook) == [f"td.ipynb cell 2, line {line} (expected ':')"]
    assert unparsed_cells(tmp_path) == unparsed_cells(notebook)
    report = check_path(notebook)
    assert report.status == "fail"
    assert report.problems == (
        f"defines none of the exercises: td.ipynb cell 2, line {line} (expected ':') is not "
        "Python, so the cell was left out with all it defines",
    )
    assert report.summary().startswith(f"{notebook}: FAIL: defines none of the exercises: td")


def test_without_such_a_cell_the_exercises_looked_for_are_named(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def hello():\n    return 1\n")
    assert none_found(tmp_path / "a.py", ["cs50", "course"]) == (
        "defines none of the exercises (cs50, course); --exercise forces one"
    )
    two = tmp_path / "two.ipynb"
    two.write_text(notebook_text([_cell("def f(:\n    pass"), _cell("x = (")]))
    assert none_found(two, ["cs50"]).startswith(
        "defines none of the exercises: two.ipynb cell 1, line 1 (invalid syntax) and "
        "two.ipynb cell 2"
    )
