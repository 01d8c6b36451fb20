"""Every way a command of ``ttt`` can fail, in one line and an exit code: the whole command
line (:func:`tttlab.cli.main`) and ``ttt verify`` run alone (:mod:`tttlab._verify_cmd`) share
it. Imports only click and the error base, so the verifier's process stays light."""

from __future__ import annotations

import os
import sys

import click

from tttlab.errors import TttlabError

__all__ = ["run_command"]


def run_command(command: click.Command, args: list[str], prog_name: str) -> int:
    """Run ``command`` on ``args``; its exit code, with every failure said in one line on
    stderr: 2 for a usage error or a refusal, 130 for Ctrl-C, 1 for a bug (its traceback
    with ``TTTLAB_DEBUG`` set)."""
    try:
        result = command.main(args=args, prog_name=prog_name, standalone_mode=False)
    except click.UsageError as error:
        path = error.ctx.command_path if error.ctx else prog_name
        where = f"ttt {path.removeprefix('ttt').strip()}".strip()
        sys.stderr.write(f"{where}: error: {error.format_message()}\n")
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
