"""The web lab's answers (``tttlab.web.compute``): its agent caches follow the files (no
server needed: the functions are called directly)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.cli.helpers import ttt
from tttlab.web import compute


def _train(folder: Path, name: str, algorithm: str) -> None:
    out = str(folder / name)
    result = ttt("train", algorithm, "--episodes", "300", "--out", out)
    assert result.returncode == 0, result.stderr


def test_a_file_trained_again_under_the_same_name_is_read_again(tmp_path: Path) -> None:
    """Agents and their evaluations were cached by name only: a file deleted and trained
    again kept serving the old agent."""
    folder = str(tmp_path)
    _train(tmp_path, "a.npz", "q")
    first = compute.call_evaluate(folder, "a.npz", "3x3k3")
    first_move = compute.call_values(folder, "a.npz", "3x3k3", ".........")
    (tmp_path / "a.npz").unlink()
    time.sleep(0.01)  # a new modification time even on coarse clocks
    _train(tmp_path, "a.npz", "td")
    second = compute.call_evaluate(folder, "a.npz", "3x3k3")
    second_move = compute.call_values(folder, "a.npz", "3x3k3", ".........")
    assert second != first
    assert second_move != first_move
    listed = {a["name"]: a for a in compute.call_agents(folder)}
    assert listed["a.npz"]["algorithm"] == "td"
    expected = json.loads(ttt("eval", str(tmp_path / "a.npz"), "--json").stdout)
    assert second == expected
