"""The cells a kernel ran, graded as one notebook in their box (:mod:`tttlab.jupyter.cells`):
the grader's own cells left out, the places named by input number, the helpers of the
working folder brought along, one grading shared by the checks of the same cells, and a
failing check's counterexample as the assertion's message."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.jupyter.conftest import Kernel
from tttlab.errors import TttlabError
from tttlab.jupyter import cells
from tttlab.jupyter.cells import assert_passes, cells_run, check_cells

CORPUS = Path(__file__).resolve().parents[1] / "usercode" / "corpus"
AGENT = (CORPUS / "td_agent" / "agent.py").read_text()


def test_the_graders_own_cells_are_left_out(kernel: Kernel) -> None:
    for source in ("x = 1", "%load_ext tttlab", "y = 2", "assert_passes('update')", "z = 3"):
        kernel.run(source)
    assert [s for _, s in cells_run(kernel.shell)] == ["x = 1", "y = 2", "z = 3"]
    assert [n for n, _ in cells_run(kernel.shell)] == [1, 3, 5]


def test_a_wrong_update_fails_with_its_counterexample_named_by_input(
    kernel: Kernel, tmp_path: Path
) -> None:
    kernel.run("%matplotlib agg")
    kernel.run(AGENT.replace("reversed(self.state_history)", "self.state_history"))
    kernel.run("for _ in range(3):\n    pass")
    with pytest.raises(AssertionError) as failed:
        assert_passes("update", shell=kernel.shell, folder=tmp_path, only=["update"])
    said = str(failed.value)
    assert said.startswith("update  FAIL")
    assert "first counterexample" in said
    assert "expected:  the backward sweep" in said
    report = check_cells(shell=kernel.shell, folder=tmp_path, only=["update"])
    assert any("top-level code not run: In [3], lines 1-2" in n for n in report.notes)
    assert any("In [1], line 1 (%matplotlib agg): left out" in n for n in report.notes)


def test_the_checks_of_the_same_cells_share_one_grading(
    kernel: Kernel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kernel.run(AGENT)
    graded = []
    real = cells.grade_cells

    def counted(*args: object, **kwargs: object) -> object:
        graded.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cells, "grade_cells", counted)
    monkeypatch.setattr(cells, "_KEPT", {})
    for check in ("update", "take_action"):
        assert assert_passes(check, shell=kernel.shell, folder=tmp_path) is None
    assert len(graded) == 1
    kernel.run("w = 1")  # a new cell: graded again
    assert_passes("update", shell=kernel.shell, folder=tmp_path)
    assert len(graded) == 2


def test_the_working_folders_helper_comes_along(kernel: Kernel, tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text("import numpy as np\nLENGTH = 3\n")
    kernel.run("%run helpers.py")  # the kernel runs it too
    kernel.run(AGENT.replace("import numpy as np\n\nLENGTH = 3\n", ""))
    report = check_cells(shell=kernel.shell, folder=tmp_path, only=["take_action"])
    assert report.ok, report.summary()
    assert report.file == "the cells run so far"
    assert "graded with the modules beside them that they import: helpers.py" in report.notes


def test_nothing_run_and_no_such_check_are_said_in_one_line(kernel: Kernel, tmp_path: Path) -> None:
    with pytest.raises(TttlabError, match="no cell has run yet"):
        check_cells(shell=kernel.shell, folder=tmp_path)
    kernel.run(AGENT)
    with pytest.raises(AssertionError, match="minimax was not checked: td-agent has no such"):
        assert_passes("minimax", shell=kernel.shell, folder=tmp_path, only=["update"])
