"""The README is the manual: its Python runs and its commands succeed."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.cli.helpers import ttt

README = (Path(__file__).parent.parent / "README.md").read_text()


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def _commands() -> list[list[str]]:
    found = []
    for block in _blocks("console"):
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("ttt "):
                found.append(shlex.split(line)[1:])
    return found


def test_readme_has_the_two_setup_commands_first() -> None:
    first = _blocks("console")[0]
    assert "make demo" in first
    assert "make test" in first


def test_readme_python_runs(capsys: pytest.CaptureFixture[str]) -> None:
    for block in _blocks("python"):
        exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out


@pytest.mark.parametrize("args", _commands(), ids=" ".join)
def test_readme_command_succeeds(args: list[str]) -> None:
    # `ttt play` is interactive: quit at the first prompt.
    result = ttt(*args, input="q\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout
