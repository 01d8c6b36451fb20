"""The ``ttt`` command line. Each command lives in its own module; this one wires them up
and turns every expected failure into one line on stderr with exit code 2."""

from __future__ import annotations

import os
import sys
import warnings

import click

from tttlab import __version__
from tttlab.cli.arena_cmd import arena_command
from tttlab.cli.check_cmd import check_command
from tttlab.cli.demo_cmd import demo_command
from tttlab.cli.eval_cmd import eval_command
from tttlab.cli.play_cmd import play_command
from tttlab.cli.policy_cmd import policy_command
from tttlab.cli.serve_cmd import serve_command
from tttlab.cli.solve_cmd import solve_command
from tttlab.cli.sweep_cmd import sweep_command
from tttlab.cli.train_cmd import train_command
from tttlab.errors import TttlabError

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ttt")
def cli() -> None:
    """tttlab: learn, solve and play tic-tac-toe and its m,n,k cousins."""


for command in (
    check_command,
    play_command,
    policy_command,
    solve_command,
    train_command,
    sweep_command,
    eval_command,
    arena_command,
    serve_command,
    demo_command,
):
    cli.add_command(command)


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
    try:
        result = cli.main(args=args, prog_name="ttt", standalone_mode=False)
    except click.UsageError as error:
        where = f"ttt {error.ctx.command_path.removeprefix('ttt').strip()}" if error.ctx else "ttt"
        sys.stderr.write(f"{where.strip()}: error: {error.format_message()}\n")
        return 2
    except TttlabError as error:  # what the user asked for cannot be done: one line
        sys.stderr.write(f"ttt: error: {error}\n")
        return 2
    except click.ClickException as error:
        sys.stderr.write(f"ttt: error: {error.format_message()}\n")
        return error.exit_code
    except (click.Abort, KeyboardInterrupt):  # Ctrl-C anywhere outside training's own handler
        sys.stderr.write("ttt: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # a bug: still one line, unless debugging
        if os.environ.get("TTTLAB_DEBUG"):
            raise
        sys.stderr.write(
            f"ttt: internal error: {type(error).__name__}: {error} "
            "(set TTTLAB_DEBUG=1 for the traceback, and please report it)\n"
        )
        return 1
    return result if isinstance(result, int) else 0
