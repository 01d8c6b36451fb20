"""``ttt verify``: check a proof certificate (``ttt solve --certificate``) against the rules
alone, with :mod:`tttlab.verifier`, which shares no code with the solver."""

from __future__ import annotations

from pathlib import Path

import click

from tttlab.cli.common import CommandError, json_option, out, print_json
from tttlab.verifier import CertificateError, UnreadableCertificate, verify_file


@click.command("verify")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@json_option
def verify_command(path: Path, as_json: bool) -> None:
    """Check a proof certificate against the rules alone (exit 1 if it is rejected, 2 if
    the file is not a certificate)."""
    try:
        verdict = verify_file(path)
    except UnreadableCertificate as error:
        raise CommandError(str(error)) from None
    except CertificateError as error:
        if as_json:
            print_json({"file": str(path), "verified": False, "reason": str(error)})
        else:
            click.echo(f"ttt verify: rejected: {error}", err=True)
        raise SystemExit(1) from None
    if as_json:
        print_json(
            {
                "file": str(path),
                "verified": True,
                "board": verdict.board,
                "claim": verdict.claim,
                "positions": verdict.positions,
            }
        )
        return
    checked = ", ".join(
        f"{side}'s strategy over {n:,} positions" for side, n in verdict.positions.items()
    )
    out.print(f"verified: {verdict.board} is {verdict.claim} ({checked}).")
