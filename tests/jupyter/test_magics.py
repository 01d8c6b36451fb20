"""``%load_ext tttlab`` and ``%ttt_check`` (:mod:`tttlab.jupyter.magics`): ``ttt check``'s
options taken, those for files and formats refused in one line, the report shown as HTML;
and the same in a real kernel, run by nbclient as Jupyter runs a notebook."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.jupyter.conftest import Kernel
from tttlab.errors import TttlabError
from tttlab.jupyter.magics import parse_options

CORPUS = Path(__file__).resolve().parents[1] / "usercode" / "corpus"
AGENT = (CORPUS / "td_agent" / "agent.py").read_text()


def test_ttt_checks_options_are_taken() -> None:
    options = parse_options("--only update --only take_action --name Agent=Player --call-limit 2")
    assert options["only"] == ("update", "take_action")
    assert options["names"] == ("Agent=Player",)
    assert options["call_seconds"] == 2.0
    assert options["time_limit"] == 120.0
    assert options["isolation"] == "auto"


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("--json", "--json is ttt check's"),
        ("--format junit", "--format is ttt check's"),
        ("-j 2", "-j is ttt check's"),
        ("--time-limit -3", "%ttt_check: Invalid value for '--time-limit'"),
        ("--only 'update", "%ttt_check: No closing quotation"),
        ("--exercise nope", "%ttt_check: Invalid value for '--exercise'"),
        (".", "it takes no path"),
    ],
)
def test_what_is_not_the_magics_is_refused_in_one_line(line: str, words: str) -> None:
    with pytest.raises(TttlabError) as refused:
        parse_options(line)
    assert words in str(refused.value)
    assert "\n" not in str(refused.value)


def test_the_magic_grades_the_cells_and_shows_html(
    kernel: Kernel,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    kernel.run("%load_ext tttlab")
    kernel.run(AGENT.replace("reversed(self.state_history)", "self.state_history"))
    report = kernel.run("%ttt_check --only update")
    assert report is not None
    assert report.status == "fail"
    data, _ = kernel.shell.display_formatter.format(report)
    html = data["text/html"]
    assert "<svg" in html  # the counterexample's board, drawn
    assert "the backward sweep" in html
    assert "<b>the cells run so far</b>" in html
    assert kernel.run("%ttt_check --csv out.csv") is None
    assert "--csv is ttt check's" in capsys.readouterr().err


def test_in_a_real_kernel_the_report_is_the_cells_output(tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    cells = [
        nbformat.v4.new_code_cell("%load_ext tttlab"),
        nbformat.v4.new_code_cell(
            AGENT.replace("reversed(self.state_history)", "self.state_history")
        ),
        nbformat.v4.new_code_cell("%ttt_check --only update"),
    ]
    notebook = nbformat.v4.new_notebook(cells=cells)
    client = nbclient.NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    outputs = notebook.cells[2].outputs
    assert [o["output_type"] for o in outputs] == ["execute_result"], json.dumps(outputs)[:500]
    html = outputs[0]["data"]["text/html"]
    assert "FAIL" in html
    assert "V[11071]" in html
    assert "<svg" in html


def test_the_graders_own_failure_is_one_line_that_says_so(
    kernel: Kernel,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(**options: object) -> None:
        raise OSError("Permission denied: 'helpers.py'")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("tttlab.jupyter.magics.check_cells", broken)
    kernel.run("%load_ext tttlab")
    assert kernel.run("%ttt_check") is None
    said = capsys.readouterr().err
    assert said == (
        "internal error in %ttt_check, not your code's: OSError: Permission denied: 'helpers.py'\n"
    )
