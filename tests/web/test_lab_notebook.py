"""The lab's Check section grades a Jupyter notebook chosen in a real headless Chromium: the
page sends it without its outputs, the server grades it in its box, and the report names the
notebook's cells."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.usercode.test_submission import agent_notebook
from tests.web.conftest import ARTIFACTS, start_serve, stop_serve


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, url = start_serve(tmp_path_factory.mktemp("lab"))
    yield url
    stop_serve(proc)


def _check_page(browser, lab):  # type: ignore[no-untyped-def]
    """The lab's Check section in a new page, once its box is ready, and the page's errors."""
    page = browser.new_page(viewport={"width": 900, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{lab}/#check")
    page.wait_for_function(
        "() => /in a box/.test(document.getElementById('check-availability').textContent)"
    )
    return page, errors


def test_a_chosen_notebook_is_graded_and_named_by_its_cells(lab, browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    notebook = json.loads(agent_notebook())
    big = {"output_type": "stream", "name": "stdout", "text": "x" * 200_000}
    notebook["cells"][2]["outputs"] = [big]  # a notebook too big to send with its outputs
    forwards = "".join(notebook["cells"][2]["source"]).replace(
        "reversed(self.state_history)", "self.state_history"
    )
    notebook["cells"][2]["source"] = forwards
    (tmp_path / "td.ipynb").write_text(json.dumps(notebook))
    page, errors = _check_page(browser, lab)
    assert "Jupyter notebook (.ipynb)" in str(page.text_content("label[for='check-source']"))
    page.set_input_files("#check-file", str(tmp_path / "td.ipynb"))
    page.wait_for_function("() => document.getElementById('check-source').value.length > 100")
    shown = page.input_value("#check-source")  # its code cells, never the notebook's JSON
    assert shown.startswith("# %% [cell 2]\n%matplotlib inline\n")
    assert "\n\n# %% [cell 3]\nclass Agent:" in shown
    assert "\n\n# %% [cell 4]\ndef play_game" in shown
    assert '"cells"' not in shown
    assert '"outputs"' not in shown
    page.fill("#check-source", shown + "\n# checked in the lab")  # an edit, to the last cell
    with page.expect_request(lambda r: r.url.endswith("/api/check")) as request:
        page.click("#check-run")
    body = json.loads(request.value.post_data or "{}")
    assert body["name"] == "td.ipynb"
    sent = json.loads(body["source"])  # the notebook itself is graded
    assert [c["outputs"] for c in sent["cells"] if c["cell_type"] == "code"] == [[], [], []]
    assert sent["cells"][2]["source"] == forwards
    assert sent["cells"][3]["source"].endswith("\n# checked in the lab")
    page.wait_for_selector("#check-table tr[data-check='update']", timeout=120_000)
    assert str(page.text_content("#check-status")).startswith("td.ipynb: FAIL")
    assert page.text_content("#check-table tr[data-check='update'] td:nth-child(2)") == "fail"
    said = str(page.text_content("#check-problems"))
    assert "td.ipynb: read as a module of its 3 code cells" in said
    assert "cell 2, line 1 (%matplotlib inline)" in said
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "lab-check-notebook.png"), full_page=True)
    assert errors == []


def test_a_notebook_that_defines_nothing_is_headed_by_why(lab, browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    notebook = json.loads(agent_notebook())
    notebook["cells"][2]["source"] = "".join(notebook["cells"][2]["source"]).replace(
        "def update(self, env):", "def update(self, env)"
    )
    (tmp_path / "td.ipynb").write_text(json.dumps(notebook))
    page, errors = _check_page(browser, lab)
    page.set_input_files("#check-file", str(tmp_path / "td.ipynb"))
    page.wait_for_function("() => document.getElementById('check-source').value.length > 100")
    page.click("#check-run")
    page.wait_for_function(
        "() => /FAIL|ERROR|pass/.test(document.getElementById('check-status').textContent)",
        timeout=120_000,
    )
    status = str(page.text_content("#check-status"))
    assert status.startswith("td.ipynb: FAIL: defines none of the exercises: td.ipynb cell 3, line")
    assert "0 of 0" not in status
    assert errors == []
