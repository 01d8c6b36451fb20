"""The ``ttt`` command line. Each command lives in its own module; this one wires them up
and turns every expected failure into one line on stderr with exit code 2."""

from __future__ import annotations

import sys
import warnings

import click

from tttlab import __version__
from tttlab._oneline import run_command
from tttlab._verify_cmd import EXAMPLES as VERIFY_EXAMPLES
from tttlab.cli.arena_cmd import arena_command
from tttlab.cli.check_cmd import check_command
from tttlab.cli.demo_cmd import demo_command
from tttlab.cli.eval_cmd import eval_command
from tttlab.cli.mdp_cmd import mdp_command
from tttlab.cli.play_cmd import play_command
from tttlab.cli.policy_cmd import policy_command
from tttlab.cli.serve_cmd import serve_command
from tttlab.cli.solve_cmd import solve_command
from tttlab.cli.sweep_cmd import sweep_command
from tttlab.cli.train_cmd import train_command
from tttlab.cli.verify_cmd import verify_command

__all__ = ["EXAMPLES", "cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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

for command in (
    check_command,
    play_command,
    policy_command,
    solve_command,
    mdp_command,
    verify_command,
    train_command,
    sweep_command,
    eval_command,
    arena_command,
    serve_command,
    demo_command,
):
    cli.add_command(command)
    assert command.name is not None
    command.epilog = "\b\nExamples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[command.name])


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
