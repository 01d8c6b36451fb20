"""A user's AGENT argument: ``file.py:NAME`` and ``package.module:NAME`` told apart from the
other AGENT arguments and imported, each failure one line naming the user's own line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tttlab.errors import AgentError
from tttlab.unboxed.userspec import (
    is_user_spec,
    load_object,
    loaded_module,
    positional_arguments,
    raised,
)


def test_specs_name_user_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text("def f(position):\n    return position.index('.')\n")
    (tmp_path / "asks.py").write_text("input('name? ')\n")
    (tmp_path / "az.npz").write_text("")
    assert is_user_spec("mine.py:f")
    assert is_user_spec("package.module:policy")
    assert not is_user_spec("az.npz:200")
    assert not is_user_spec("mcts:200")
    assert callable(load_object("mine.py:f"))
    with pytest.raises(AgentError, match=r"asks\.py calls input\(\) when imported"):
        load_object("asks.py:f")
    with pytest.raises(AgentError, match=r"mine\.py has no 'g'"):
        load_object("mine.py:g")
    with pytest.raises(AgentError, match="cannot import no_such_module_here"):
        load_object("no_such_module_here:f")


def test_a_package_module_spec_resolves_the_same_under_the_console_script(tmp_path: Path) -> None:
    """``package.module:NAME`` from the current folder failed under ``ttt`` (the console
    script's path starts at its bin folder) and worked under ``python -m tttlab``."""
    (tmp_path / "players").mkdir()
    (tmp_path / "players" / "__init__.py").write_text("")
    (tmp_path / "players" / "first.py").write_text(
        "def policy(position):\n    return position.index('.')\n"
    )
    console = Path(sys.executable).with_name("ttt")
    for command in ([str(console)], [sys.executable, "-m", "tttlab"]):
        done = subprocess.run(
            [*command, "eval", "players.first:policy", "--json"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "players.first:policy: f(position) -> cell" in done.stderr
        assert json.loads(done.stdout)["X"]["decision_positions"] == 74


def test_an_import_that_fails_is_one_line_with_the_users_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(1)\n")
    (tmp_path / "fails.py").write_text("x = 1\ny = 1 / 0\n")
    with pytest.raises(AgentError, match=r"exits\.py calls sys\.exit\(\) when imported"):
        load_object("exits.py:f")
    wanted = r"cannot import fails\.py: ZeroDivisionError: division by zero \(fails\.py line 2\)"
    with pytest.raises(AgentError, match=wanted):
        load_object("fails.py:y")
    with pytest.raises(AgentError, match=r"bad agent 'no name': expected file\.py:NAME"):
        load_object("no name")


def test_the_module_a_spec_was_loaded_from_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kept.py").write_text("class Environment: ...\n\ndef f(position):\n    return 0\n")
    assert loaded_module("kept.py:f") is None
    f = load_object("kept.py:f")
    assert loaded_module("kept.py:f").f is f
    assert isinstance(loaded_module("kept.py:f").Environment, type)


def test_raised_says_the_error_and_the_users_line() -> None:
    assert raised(ValueError("two\n  lines")) == "ValueError: two lines"  # never raised
    assert raised(KeyError()) == "KeyError"
    try:
        {}["missing"]
    except KeyError as error:
        said = raised(error)
    assert re.fullmatch(r"KeyError: 'missing' \(test_userspec\.py line \d+\)", said), said


def test_positional_arguments_counts_what_a_call_needs() -> None:
    assert positional_arguments(lambda a, b, c=0, *rest, d=1: 0) == 2
    assert positional_arguments(lambda: 0) == 0
    assert positional_arguments(3) is None
