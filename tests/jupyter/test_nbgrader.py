"""The grading guide's recipe for nbgrader, run with nbgrader's own ``generate_assignment``
and ``autograde`` on a small assignment: hidden test cells written as the guide writes them,
a notebook whose update sweeps forwards losing that cell's points, with its counterexample
as the cell's error, and earning the points of the checks it passes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
AGENT = (ROOT / "tests" / "usercode" / "corpus" / "td_agent" / "agent.py").read_text()
CODE = AGENT.split('"""', 2)[2]
#: The checks of the course's agent, and their points.
POINTS = {"update": 2, "take_action": 2, "play_game": 1}


def recipe() -> str:
    """The hidden test cell, as the grading guide writes it."""
    guide = (ROOT / "docs" / "guides" / "grading.md").read_text()
    found = re.search(r"<!-- nbgrader-recipe[^>]*-->\n```py\n(.*?)```", guide, re.S)
    assert found is not None
    return found[1]


def _cell(source: str, **nbgrader: Any) -> dict[str, Any]:
    meta = {"schema_version": 3, "locked": True, "solution": False, "grade": False, **nbgrader}
    return {
        "cell_type": "code",
        "source": source,
        "metadata": {"nbgrader": meta},
        "outputs": [],
        "execution_count": None,
    }


def _assignment(course: Path) -> None:
    cells = [
        _cell(
            "### BEGIN SOLUTION\n" + CODE + "### END SOLUTION",
            grade_id="agent",
            locked=False,
            solution=True,
        )
    ]
    for check, points in POINTS.items():
        test = recipe().replace('"update"', repr(check))
        cells.append(_cell(test, grade=True, grade_id=f"test_{check}", points=points))
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (course / "source" / "ps1").mkdir(parents=True)
    (course / "source" / "ps1" / "td.ipynb").write_text(json.dumps(notebook))
    config = ["c = get_config()", 'c.CourseDirectory.course_id = "rl"']
    config.append("c.ExecutePreprocessor.timeout = 600")
    (course / "nbgrader_config.py").write_text("\n".join(config) + "\n")


def _nbgrader(course: Path, *args: str) -> None:
    bin_folder = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_folder + os.pathsep + os.environ.get("PATH", "")}
    done = subprocess.run(
        [str(Path(bin_folder) / "nbgrader"), *args],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_the_recipe_grades_each_check_in_its_cell(tmp_path: Path) -> None:
    pytest.importorskip("nbgrader")
    course = tmp_path / "course"
    _assignment(course)
    _nbgrader(course, "generate_assignment", "ps1")
    released = json.loads((course / "release" / "ps1" / "td.ipynb").read_text())
    assert all("assert_passes" not in "".join(c["source"]) for c in released["cells"])  # hidden
    wrong = CODE.replace("reversed(self.state_history)", "self.state_history")
    assert wrong != CODE
    released["cells"][0]["source"] = wrong
    folder = course / "submitted" / "bob" / "ps1"
    folder.mkdir(parents=True)
    (folder / "td.ipynb").write_text(json.dumps(released))
    _nbgrader(course, "autograde", "ps1")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as book:
        notebook = book.find_submission_notebook("td", "ps1", "bob")
        scores = {grade.name: grade.auto_score for grade in notebook.grades}
        most = {grade.name: grade.max_score for grade in notebook.grades}
    assert most == {f"test_{c}": float(p) for c, p in POINTS.items()}
    assert scores == {"test_update": 0.0, "test_take_action": 2.0, "test_play_game": 1.0}
    graded = json.loads((course / "autograded" / "bob" / "ps1" / "td.ipynb").read_text())
    errors = [
        o for c in graded["cells"] for o in c.get("outputs", []) if o["output_type"] == "error"
    ]
    assert len(errors) == 1
    assert errors[0]["ename"] == "AssertionError"
    assert "update: first counterexample" in errors[0]["evalue"]
    assert "expected:  the backward sweep" in errors[0]["evalue"]
