"""``ttt verify``: check a proof certificate (``ttt solve --certificate``) against the rules
alone, with :mod:`tttlab.verifier`, which shares no code with the solver.

The command imports nothing of the rest of the command line (whose modules import the
solver and numba): ``ttt verify`` runs it on its own (:func:`main`, from ``tttlab._entry``),
so the process that checks a proof never loads the code that found it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from tttlab._oneline import run_command
from tttlab.errors import TttlabError
from tttlab.verifier import CertificateError, UnreadableCertificate, verify_file

__all__ = ["EXAMPLES", "main", "verify_command"]

#: ``ttt verify --help``'s examples (also in the command line's table of them).
EXAMPLES = ("ttt verify 654.json", "ttt verify 654.json --json")


class _Unreadable(click.ClickException, TttlabError):
    """A path that cannot be read: exit 2, as for any bad argument of ``ttt``."""

    exit_code = 2


def _print_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, separators=(",", ":")) + "\n")
    sys.stdout.flush()


@click.command("verify", epilog="\b\nExamples:\n" + "\n".join(f"  {e}" for e in EXAMPLES))
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--json", "as_json", is_flag=True, help="Print JSON (fields: the JSON output reference)."
)
def verify_command(path: Path, as_json: bool) -> None:
    """Check a proof certificate against the rules alone (exit 1 if it is rejected, 2 if
    the file cannot be read)."""
    try:
        verdict = verify_file(path)
    except UnreadableCertificate as error:
        raise _Unreadable(str(error)) from None
    except CertificateError as error:
        if as_json:
            _print_json({"file": str(path), "verified": False, "reason": str(error)})
        else:
            click.echo(f"ttt verify: rejected: {error}", err=True)
        raise SystemExit(1) from None
    if as_json:
        _print_json(
            {
                "file": str(path),
                "verified": True,
                "board": verdict.board,
                "position": verdict.position,
                "claim": verdict.claim,
                "positions": verdict.positions,
            }
        )
        return
    checked = ", ".join(
        f"{side}'s strategy over {n:,} positions" for side, n in verdict.positions.items()
    )
    click.echo(f"verified: {verdict.describe()} ({checked}).")


def main(argv: list[str] | None = None) -> int:
    """``ttt verify ARGS`` on its own, with the command line's one-line failures."""
    args = sys.argv[2:] if argv is None else argv
    return run_command(verify_command, args, "ttt verify")
