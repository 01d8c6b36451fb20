"""Options, parameter types and error reporting shared by every command."""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from tttlab.game import DEFAULT, Geometry, GeometryError

F = TypeVar("F", bound=Callable[..., Any])

#: Normal output goes to stdout; progress, prompts for attention and errors to stderr.
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class CommandError(click.ClickException):
    """A one-line failure that exits with code 2."""

    exit_code = 2


class FiniteFloat(click.FloatRange):
    """A float range that also refuses nan and infinities (click's FloatRange lets nan
    through, since every comparison with nan is false)."""

    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


class BoardType(click.ParamType):  # type: ignore[type-arg]
    name = "RxC[kK]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, Geometry):
            return value
        try:
            return Geometry.parse(str(value))
        except GeometryError as error:
            self.fail(str(error), param, ctx)


def board_options(func: F) -> F:
    """``--board RxC`` and ``--k K``, combined into a ``geometry`` argument."""
    func = click.option(
        "--k",
        "k",
        type=click.IntRange(min=1),
        default=None,
        help="Marks in a row needed to win (default: from --board, else its shorter side).",
    )(func)
    func = click.option(
        "--board",
        "board",
        type=BoardType(),
        default=None,
        help="Board size as RxC, or RxCkK (e.g. 4x4k4). Default: 3x3, or an agent file's.",
    )(func)
    return func


def geometry_from(board: Geometry | None, k: int | None, *, search: bool = False) -> Geometry:
    """Apply ``--k`` to a parsed ``--board`` (3x3 when there is none). Boards past 39 cells
    are refused unless for the proof search (``search``: ``ttt solve``)."""
    if board is None:
        board = DEFAULT
    if k is not None and k != board.k:
        try:
            board = Geometry(board.rows, board.cols, k)
        except GeometryError as error:
            raise click.BadParameter(str(error), param_hint="'--k'") from None
    if not search:
        try:
            board.require_play_size()
        except GeometryError as error:
            raise click.BadParameter(str(error), param_hint="'--board'") from None
    return board


def side_option(help: str, default: str | None = None, hidden: bool = False) -> Callable[[F], F]:
    """``--as X|O`` (either case), into a ``side`` argument."""
    return click.option(
        "--as",
        "side",
        type=click.Choice(["X", "O", "x", "o"]),
        default=default,
        show_default=default is not None,
        hidden=hidden,
        help=help,
    )


def file_option(
    name: str, dest: str, help: str, required: bool = False, dash: bool = False
) -> Callable[[F], F]:
    """An option naming a file (not a folder; ``-`` too with ``dash``), into ``dest``."""
    path = click.Path(dir_okay=False, allow_dash=dash, path_type=Path)
    if required:  # no default at all: click 8.3 takes an explicit None as a value given
        return click.option(name, dest, type=path, required=True, help=help)
    return click.option(name, dest, type=path, default=None, help=help)


def seed_option(func: F) -> F:
    return click.option(
        "--seed",
        type=click.IntRange(min=0),
        default=None,
        help="Seed for every random choice (default: fresh entropy).",
    )(func)


def shown_option(
    name: str, kind: click.ParamType[Any], default: Any, help: str
) -> Callable[[F], F]:
    """An option whose type bounds it (``FiniteFloat``, ``click.IntRange``) and whose
    default ``--help`` shows."""
    return click.option(name, type=kind, default=default, show_default=True, help=help)


def json_option(func: F) -> F:
    return click.option(
        "--json", "as_json", is_flag=True, help="Print JSON (fields: the JSON output reference)."
    )(func)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def writable_target(path: Path, option: str) -> None:
    """Refuse, before any work, an output path that could not be written."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise click.BadParameter(f"folder {folder} does not exist", param_hint=option)
    if path.is_dir():
        raise click.BadParameter(f"{path} is a folder", param_hint=option)
    if not os.access(folder, os.W_OK):
        raise click.BadParameter(f"folder {folder} is not writable", param_hint=option)
    # Permissions are not the whole story (/proc, read-only mounts, full quotas): try it.
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".ttt-probe."):
            pass
    except OSError as error:
        raise click.BadParameter(
            f"folder {folder} is not writable ({error.strerror or error})", param_hint=option
        ) from None


def convention_option(func: F) -> F:
    """``--convention``: how to call an agent given as FILE.py:NAME or module:NAME."""
    from tttlab.unboxed import CONVENTIONS

    return click.option(
        "--convention",
        type=click.Choice(CONVENTIONS),
        default=None,
        help="How to call a FILE.py:NAME or package.module:NAME agent (default: detected).",
    )(func)
