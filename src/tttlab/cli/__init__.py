"""The ``ttt`` command line. Each command lives in its own module; this one wires them up
and turns every expected failure into one line on stderr with exit code 2."""

from __future__ import annotations

import importlib
import sys
import warnings

import click

from tttlab import __version__
from tttlab._oneline import run_command
from tttlab._verify_cmd import EXAMPLES as VERIFY_EXAMPLES

__all__ = ["EXAMPLES", "cli", "every_command", "main"]

#: Each command's module and attribute. A command's module is imported when the command is
#: run, or listed by ``ttt --help``: ``ttt check`` never loads the solver's numba kernels,
#: nor ``ttt verify`` anything of the solver (each command pays for what it uses).
COMMANDS = {
    "check": "check_cmd:check_command",
    "play": "play_cmd:play_command",
    "policy": "policy_cmd:policy_command",
    "solve": "solve_cmd:solve_command",
    "mdp": "mdp_cmd:mdp_command",
    "verify": "verify_cmd:verify_command",
    "train": "train_cmd:train_command",
    "sweep": "sweep_cmd:sweep_command",
    "eval": "eval_cmd:eval_command",
    "arena": "arena_cmd:arena_command",
    "serve": "serve_cmd:serve_command",
    "demo": "demo_cmd:demo_command",
}


class _Commands(click.Group):
    """A group whose commands are imported from :data:`COMMANDS` when first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, attribute = COMMANDS[cmd_name].split(":")
            command = getattr(importlib.import_module(f"tttlab.cli.{module}"), attribute)
            command.epilog = "\b\nExamples:\n" + "\n".join(
                f"  {line}" for line in EXAMPLES[cmd_name]
            )
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in COMMANDS:  # click suggests a name from the loaded commands
            for name in COMMANDS:
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ttt")
def cli() -> None:
    """tttlab: learn, solve and play tic-tac-toe and its m,n,k cousins."""


#: A few commands for each ``ttt`` command: its ``--help`` shows them, and so does the command
#: reference of the documentation (tests/test_docs.py parses every one).
EXAMPLES: dict[str, tuple[str, ...]] = {
    "check": (
        "ttt check tictactoe.py",
        "ttt check submissions/*.py --csv grades.csv",
        "ttt check submissions/*.py --isolation required --json",
        "ttt check tictactoe.py --only minimax --time-limit 30 --json",
    ),
    "play": (
        "ttt play",
        "ttt play --as O --opponent minimax",
        "ttt play --board 4x4 --k 4 --opponent mcts:2000 --show-values",
    ),
    "policy": ("ttt policy perfect --json", "ttt policy q.npz"),
    "solve": (
        "ttt solve",
        "ttt solve --board 4x4 --k 4 --json",
        "ttt solve --board 6x5 --k 4 --certificate 654.json",
    ),
    "mdp": (
        "ttt mdp --json",
        "ttt mdp --as O --method pi --json",
        "ttt mdp --as O --explain",
        "ttt mdp --opponent perfect --gamma 0.9 --out mdp.npz",
    ),
    "verify": VERIFY_EXAMPLES,
    "train": (
        "ttt train q --episodes 20000 --seed 0 --out q.npz",
        "ttt train td --episodes 200000 --out td.npz --curve td.png --log td.jsonl",
        "ttt train q --opponent random --as O --out o.npz",
        "ttt train alphazero --board 4x4 --k 4 --out az44.npz --checkpoint-every 65536",
    ),
    "sweep": (
        "ttt sweep q td --episodes 2000,5000 --seeds 0-3 --out sweep.csv --plot sweep.png",
        "ttt sweep q --episodes 10000 --seeds 0-9 --set alpha=0.1,0.5 --out alpha.csv",
        "ttt sweep q --episodes 1000000 --seeds 0-99 --out big.csv --address 10.0.0.1:6379",
    ),
    "eval": (
        "ttt eval perfect",
        "ttt eval q.npz --json",
        "ttt eval my_agent.py:policy --convention gym",
        "ttt eval az44.npz --board 4x4 --k 4",
        "ttt eval az55.npz --prove --as X",
    ),
    "arena": (
        "ttt arena perfect random q.npz --games 100 --seed 0",
        "ttt arena mcts:200 mcts:1000 --board 4x4 --k 4 --games 10 --json",
    ),
    "serve": ("ttt serve", "ttt serve --agents trained/ --port 8080"),
    "demo": ("ttt demo",),
}


def every_command() -> dict[str, click.Command]:
    """Every ``ttt`` command by name, each module imported (the docs' reference, tests)."""
    context = click.Context(cli, info_name="ttt")
    found = {name: cli.get_command(context, name) for name in COMMANDS}  # the docs' order
    return {name: command for name, command in found.items() if command is not None}


def _one_line_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: object = None,
    line: str | None = None,
) -> None:
    sys.stderr.write(f"ttt: warning: {message}\n")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ttt`` console script."""
    args = sys.argv[1:] if argv is None else argv
    warnings.showwarning = _one_line_warning  # e.g. a damaged table cache: one line
    return run_command(cli, args, "ttt")
