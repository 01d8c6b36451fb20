"""The ``ttt`` group (``tttlab/cli/__init__.py``): each command's module is imported when the
command is run or listed, so a command pays only for what it uses."""

from __future__ import annotations

import click

from tests.cli.helpers import modules_after
from tttlab.cli import COMMANDS, EXAMPLES, cli, every_command

#: The modules watched: the commands' own, the solver's and numba.
WATCHED = ("tttlab.cli.", "tttlab.solvers", "numba")


def test_a_command_loads_its_own_module_and_not_the_solver() -> None:
    result, loaded = modules_after("check", "--help", prefixes=WATCHED)
    assert result.returncode == 0, result.stderr
    assert "Usage: ttt check" in result.stdout
    assert "tttlab.cli.check_cmd" in loaded
    assert not [m for m in loaded if m.endswith("_cmd") and m != "tttlab.cli.check_cmd"]
    assert not [m for m in loaded if m.startswith(("numba", "tttlab.solvers"))], loaded


def test_the_group_lists_every_command_with_its_examples() -> None:
    result, loaded = modules_after("--help", prefixes=WATCHED)
    assert result.returncode == 0, result.stderr
    listed = [line.split()[0] for line in result.stdout.split("Commands:")[1].splitlines()[1:]]
    assert listed == sorted(COMMANDS)
    assert {f"tttlab.cli.{spec.split(':')[0]}" for spec in COMMANDS.values()} <= set(loaded)
    commands = every_command()
    assert list(commands) == list(COMMANDS)  # the reference's order: check first
    assert set(commands) == set(EXAMPLES)
    for name, command in commands.items():
        assert command.name == name
        assert EXAMPLES[name][0] in command.get_help(click.Context(command, info_name=name))


def test_an_unknown_command_is_one_line() -> None:
    result, _ = modules_after("chek", prefixes=WATCHED)
    assert result.returncode == 2
    assert "No such command 'chek'. Did you mean 'check'?" in result.stderr
    assert cli.get_command(click.Context(cli), "chek") is None
