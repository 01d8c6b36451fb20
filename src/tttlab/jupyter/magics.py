"""``%load_ext tttlab``, then ``%ttt_check``: the cells run so far, graded in their box, the
report shown in the notebook (the table, each first counterexample with its board drawn and
the line that reproduces it). The magic takes ``ttt check``'s options (``--only update``,
``--name Agent=Player``, ``--time-limit 60``...); those that choose an output format or a
class's parallelism are for the command line, and are refused in one line.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

import click

from tttlab.cli.check_cmd import check_command
from tttlab.errors import TttlabError
from tttlab.jupyter.cells import check_cells
from tttlab.usercode.report import CheckReport

__all__ = ["load_ipython_extension", "parse_options", "ttt_check"]

#: ``ttt check``'s options that say where or how a report is written: not the magic's.
_ELSEWHERE = {
    "jobs": "-j",
    "fmt": "--format",
    "points": "--points",
    "csv_path": "--csv",
    "as_json": "--json",
}


def parse_options(line: str) -> dict[str, Any]:
    """``ttt check``'s options in ``line`` as :func:`~tttlab.jupyter.cells.check_cells`'s,
    or a :class:`TttlabError` in one line."""
    try:
        words = shlex.split(line)
    except ValueError as error:
        raise TttlabError(f"%ttt_check: {error}") from None
    try:
        context = check_command.make_context("%ttt_check", [*words, "--", "."])
    except click.exceptions.Exit:  # --help: printed already
        raise TttlabError("%ttt_check takes ttt check's options (above)") from None
    except click.ClickException as error:
        raise TttlabError(f"%ttt_check: {error.format_message()}") from None
    except ValueError as error:  # a character no option takes (a NUL)
        raise TttlabError(f"%ttt_check: {error}") from None
    given = context.params
    if len(given["paths"]) != 1:
        raise TttlabError("%ttt_check grades the cells run so far: it takes no path")
    for key, flag in _ELSEWHERE.items():
        default = () if key == "points" else (False if key == "as_json" else None)
        if given.get(key) != default:
            raise TttlabError(f"%ttt_check shows the report here: {flag} is ttt check's")
    if given.get("visibility") != "visible":
        raise TttlabError("%ttt_check shows the report here: --visibility is ttt check's")
    return {
        "exercise": given["exercise"],
        "only": tuple(given["only"]),
        "names": tuple(given["names"]),
        "time_limit": given["time_limit"],
        "call_seconds": given["call_limit"],
        "memory_mb": given["memory_limit"],
        "isolation": given["isolation"],
    }


def ttt_check(line: str = "") -> CheckReport | None:
    """The magic: the report (shown as HTML), or None after a one-line refusal."""
    import tttlab

    tttlab._register_notebook_display()  # the report's HTML, in whichever shell this is
    try:
        return check_cells(**parse_options(line))
    except TttlabError as error:
        print(error, file=sys.stderr)
        return None
    except Exception as error:  # the grader's own failure (a file it could not read, a bug)
        said = " ".join(str(error).split())[:200]
        print(
            f"internal error in %ttt_check, not your code's: {type(error).__name__}: {said}",
            file=sys.stderr,
        )
        return None


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext tttlab``: registers ``%ttt_check``."""
    ipython.register_magic_function(ttt_check, magic_kind="line", magic_name="ttt_check")
