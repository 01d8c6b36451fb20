"""``ttt arena`` through the command line (a whole tournament: tests/cli/test_train_cmd.py,
with a trained agent among built-ins)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import refusal


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["arena", "perfect"], "at least two"),
        (["arena", "perfect", "random", "--games", "0"], "'--games'"),
    ],
)
def test_bad_arguments(tmp_path: Path, args: list[str], fragment: str) -> None:
    assert fragment in refusal(*args, cwd=str(tmp_path))
