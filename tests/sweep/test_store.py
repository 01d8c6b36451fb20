"""A sweep's results file (``tttlab.sweep.store``): one with other columns is left as it is."""

from __future__ import annotations

from pathlib import Path

from tests.cli.helpers import ttt


def test_a_results_file_with_other_columns_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "other.csv"
    out.write_text("name,score\nalice,3\n")
    result = ttt("sweep", "q", "--episodes", "100", "--seeds", "0", "--out", str(out))
    assert result.returncode == 2
    assert "other columns" in result.stderr
    assert out.read_text() == "name,score\nalice,3\n"
