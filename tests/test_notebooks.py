"""The lessons in notebooks/ run top to bottom in a fresh kernel, and their checks hold."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext", reason="the lessons extra is not installed")
nbclient = pytest.importorskip("nbclient", reason="the lessons extra is not installed")

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("[0-9]*.py"))


def test_there_are_seven_lessons() -> None:
    assert len(NOTEBOOKS) == 7


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, tmp_path: Path) -> None:
    notebook = jupytext.read(path)
    assert all(not cell.get("outputs") for cell in notebook.cells)  # text, no outputs
    client = nbclient.NotebookClient(
        notebook,
        timeout=120,  # per cell; the whole lesson must stay well under 2 minutes
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
        allow_errors=False,
    )
    os.environ.setdefault("MPLBACKEND", "Agg")
    client.execute()  # raises CellExecutionError, naming the failing cell, on any error
    shown = [
        out
        for cell in notebook.cells
        for out in cell.get("outputs", [])
        if out.get("output_type") in ("execute_result", "display_data")
    ]
    assert shown, "a lesson shows something"
