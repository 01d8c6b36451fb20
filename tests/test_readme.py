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


def test_readme_python_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the examples write files
    for block in _blocks("python"):
        exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out


def test_readme_commands_succeed_in_order(tmp_path: Path) -> None:
    """Every `ttt` line of the README, in order, in a scratch folder (later lines use the
    files earlier ones wrote). `ttt play` is interactive: it quits at the first prompt."""
    commands = _commands()
    assert len(commands) >= 10
    for args in commands:
        if args[0] == "serve":  # runs until stopped; tests/web starts and checks a real one
            continue
        result = ttt(*args, input="q\n", cwd=str(tmp_path), timeout=300)
        assert result.returncode == 0, (args, result.stderr)
        assert result.stdout, args


def test_readme_mdp_explanation_comes_from_the_code() -> None:
    block = re.search(r"<!-- explain: ttt (.*?) -->\n```text\n(.*?)```", README, flags=re.S)
    assert block is not None
    args = shlex.split(block.group(1))
    result = ttt(*args)
    assert result.returncode == 0
    assert result.stdout.strip() == block.group(2).strip()
