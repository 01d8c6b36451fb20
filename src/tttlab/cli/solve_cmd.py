"""``ttt solve``: the exact value of a board, with counts of its positions and games (the MDP
against a fixed opponent is ``ttt mdp``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from tttlab import api
from tttlab._signals import raise_interrupts
from tttlab.cli.common import (
    CommandError,
    FiniteFloat,
    board_options,
    err,
    file_option,
    geometry_from,
    json_option,
    out,
    print_json,
    writable_target,
)
from tttlab.cli.mdp_cmd import mdp_options, solve_mdp
from tttlab.game import Geometry, Position, check_enumerable
from tttlab.render import board_text
from tttlab.solvers.bitboard import SearchProgress, SearchTooLarge
from tttlab.solvers.certificate import build_certificate, write_certificate
from tttlab.solvers.longrun import prove_resumable
from tttlab.solvers.summary import DEFAULT_MEMORY_MB, proof_summary, table_bits

#: ``ttt solve``'s default time limit for a proof search (every published board up to 7×7
#: takes under 5 s here; longer proofs: --time-limit and --checkpoint).
SOLVE_SECONDS = 600.0


def checkpointed_summary(
    geometry: Geometry,
    path: Path,
    every: float,
    time_limit: float,
    memory_mb: int | None,
    progress: Callable[[SearchProgress], None],
) -> dict[str, Any]:
    """The JSON of ``ttt solve --checkpoint``: the proof's, over every run of it."""
    started = time.perf_counter()
    try:
        proof = prove_resumable(
            Position.initial(geometry),
            path,
            table_bits(geometry, memory_mb),
            every=every,
            time_limit=time_limit,
            progress=progress,
        )
    except SearchTooLarge as error:
        raise CommandError(f"{error}; its table is saved in {path}") from None
    summary = proof_summary(geometry, proof, time.perf_counter() - started)
    return api.SolveResult.from_dict(summary).to_dict()


def certificate_summary(
    geometry: Geometry, path: Path, time_limit: float, memory_mb: int | None, zones: bool = True
) -> dict[str, Any]:
    """The JSON of ``ttt solve --certificate``: the certificate's first proof (of the value,
    with the table that the rest of the certificate then shares) and the file written."""
    try:
        certificate = build_certificate(
            Position.initial(geometry),
            table_bits=table_bits(geometry, memory_mb),
            time_limit=time_limit,
            symmetric=True,
            zones=zones,
        )
    except SearchTooLarge as error:
        raise CommandError(str(error)) from None
    size = write_certificate(certificate, path)
    root = certificate.root
    summary = api.SolveResult.from_dict(proof_summary(geometry, root, root.seconds)).to_dict()
    summary["certificate"] = {
        "file": str(path),
        "moves": certificate.moves,
        "bytes": size,
        "seconds": round(certificate.seconds, 3),
    }
    return summary


def solve_summary(geometry: Geometry) -> dict[str, Any]:
    """The JSON of ``ttt solve`` from the full table (documented in docs/reference/json.md)."""
    return api.solve(geometry, "table").to_dict()


def _moved(ctx: click.Context, param: click.Parameter, mdp: bool) -> bool:
    """``--mdp`` says first, on stderr, that the MDP has a command of its own now."""
    if mdp and not ctx.resilient_parsing:
        click.echo(
            "ttt: warning: ttt solve --mdp moved to ttt mdp; this form goes in the next release",
            err=True,
        )
    return mdp


@click.command("solve")
@board_options
@json_option
@click.option(
    "--engine",
    "solve_method",
    type=click.Choice(["auto", "table", "search"]),
    default="auto",
    show_default=True,
    help="The full table (every position, with counts) or the compiled proof search; auto "
    "picks the table up to 1 million candidate positions.",
)
@click.option(
    "--positions",
    is_flag=True,
    help="Enumerate and count every reachable position (the table method), where memory allows.",
)
@click.option(
    "--time-limit",
    type=FiniteFloat(0.0, min_open=True),
    default=None,
    help=f"Proof search: stop after this many seconds and say so [default: {SOLVE_SECONDS:g}].",
)
@file_option(
    "--certificate",
    "certificate_path",
    "Proof search: also write the proof's strategies to this file, for ttt verify "
    "(version 3: one entry per class of positions up to the board's symmetries, with zones).",
)
@click.option(
    "--zones/--no-zones",
    default=None,
    help="Proof search with --certificate: holding strategies with zones (version 3, the "
    "default), or without (version 2: smaller where positions transpose a lot, as on 8x4 "
    "with k=4).",
)
@file_option(
    "--checkpoint",
    "checkpoint_path",
    "Proof search: save the search's table to this file as it goes (every "
    "--checkpoint-every seconds, and when stopped), and start from it where it exists: a "
    "long proof that is stopped or killed goes on where it stopped.",
)
@click.option(
    "--checkpoint-every",
    type=FiniteFloat(0.0, min_open=True),
    default=None,
    help="Proof search with --checkpoint: seconds between saves [default: 600].",
)
@click.option(
    "--memory",
    "memory_mb",
    type=click.IntRange(16, 1 << 20),
    default=None,
    help=f"Proof search: MiB for its transposition table [default: {DEFAULT_MEMORY_MB}].",
)
# ``ttt solve --mdp`` until the next release: ``ttt mdp`` with its options, none listed here.
@click.option("--mdp", is_flag=True, hidden=True, is_eager=True, callback=_moved)
@mdp_options(hidden=True)
def solve_command(
    board: Geometry | None,
    k: int | None,
    as_json: bool,
    solve_method: str = "auto",
    positions: bool = False,
    time_limit: float | None = None,
    memory_mb: int | None = None,
    certificate_path: Path | None = None,
    checkpoint_path: Path | None = None,
    checkpoint_every: float | None = None,
    zones: bool | None = None,
    mdp: bool = False,
    **mdp_args: Any,
) -> None:
    """Solve a board exactly (value, positions, games): by the full table, or by compiled
    proof search on boards too big for one."""
    search_only = {
        "--time-limit": time_limit,
        "--memory": memory_mb,
        "--certificate": certificate_path,
        "--checkpoint": checkpoint_path,
        "--checkpoint-every": checkpoint_every,
        "--zones/--no-zones": zones,
    }
    if mdp:
        if any(v is not None for v in search_only.values()):
            given = [name for name, v in search_only.items() if v is not None]
            raise click.UsageError(f"{', '.join(given)} only work without --mdp")
        solve_mdp(board, k, as_json, **mdp_args)
        return
    params = click.get_current_context().command.params
    given = [p.opts[0] for p in params if mdp_args.get(p.name or "")]
    if given:
        raise click.UsageError(f"{', '.join(given)} only work with ttt mdp")
    geometry = geometry_from(board, k, search=True)
    use_table = positions or api.uses_table(geometry, solve_method)
    if use_table and any(v is not None for v in search_only.values()):
        given = [name for name, v in search_only.items() if v is not None]
        raise click.UsageError(
            f"{', '.join(given)} only work with the proof search (--engine search), "
            f"not with the full table"
        )
    if checkpoint_every is not None and checkpoint_path is None:
        raise click.UsageError("--checkpoint-every only works with --checkpoint")
    if zones is not None and certificate_path is None:
        raise click.UsageError("--zones/--no-zones only work with --certificate")
    if checkpoint_path is not None and certificate_path is not None:
        raise click.UsageError("--checkpoint does not work with --certificate")
    if not use_table:
        limit = SOLVE_SECONDS if time_limit is None else time_limit
        if certificate_path is None:
            doing = f"Proving the value of {geometry.name} (at most {limit:g} s)"
            with err.status(f"{doing}…") as status:

                def tell(progress: SearchProgress) -> None:
                    status.update(f"{doing}: {progress.describe()}")

                if checkpoint_path is not None:
                    writable_target(checkpoint_path, "'--checkpoint'")
                    raise_interrupts()  # a Ctrl-C saves the table before the command ends
                    every = 600.0 if checkpoint_every is None else checkpoint_every
                    summary = checkpointed_summary(
                        geometry, checkpoint_path, every, limit, memory_mb, tell
                    )
                else:
                    try:
                        result = api.solve(
                            geometry, "search", time_limit=limit, memory_mb=memory_mb, progress=tell
                        )
                    except SearchTooLarge as error:
                        raise CommandError(str(error)) from None
                    summary = result.to_dict()
        else:
            writable_target(certificate_path, "'--certificate'")
            with err.status(f"Proving {geometry.name} with a certificate (at most {limit:g} s)…"):
                summary = certificate_summary(
                    geometry, certificate_path, limit, memory_mb, zones is not False
                )
        if as_json:
            print_json(summary)
            return
        verdict = {1: "X wins", 0: "a draw", -1: "O wins"}[summary["value"]]
        out.print(
            f"[bold]{geometry.name}[/bold]: with perfect play the game is {verdict} "
            f"(proved by search: {summary['nodes']:,} nodes, {summary['table_entries']:,} "
            f"table entries, {summary['seconds']} s)."
        )
        move = summary.get("best_move")
        if summary["value"] == 1 and move is not None:
            row, col = divmod(move, geometry.cols)
            out.print(f"X's winning first move: {move + 1} (row {row + 1}, column {col + 1}).")
        if certificate_path is not None:
            c = summary["certificate"]
            out.print(
                f"Certificate: {c['file']} ({c['moves']:,} positions with a move, "
                f"{c['bytes']:,} bytes, {c['seconds']} s); check it with: ttt verify {c['file']}"
            )
        return
    check_enumerable(geometry)
    with err.status(f"Solving {geometry.name}…"):
        summary = solve_summary(geometry)
    if as_json:
        print_json(summary)
        return
    verdict = {1: "X wins", 0: "a draw", -1: "O wins"}[summary["value"]]
    split = summary["terminal_split"]
    tree = summary["game_tree"]
    out.print(
        f"[bold]{geometry.name}[/bold]: with perfect play the game is {verdict} "
        f"(it lasts {summary['depth']} plies)."
    )
    out.print(
        f"Reachable positions: {summary['positions']:,} "
        f"({summary['symmetric_positions']:,} up to symmetry), of which "
        f"{summary['terminal']:,} are final: X wins {split['x_wins']:,}, "
        f"O wins {split['o_wins']:,}, draws {split['draws']:,}."
    )
    out.print(
        f"Game tree: {tree['nodes']:,} nodes and {tree['games']:,} complete games "
        f"(X wins {tree['x_wins']:,}, O wins {tree['o_wins']:,}, draws {tree['draws']:,})."
    )
    first = [m + 1 for m in summary["best_first_moves"]]
    out.print(f"Best first moves (cells as numbered below): {first}")
    out.print(board_text(Position.initial(geometry)))
    out.print(f"Solved in {summary['seconds']} s.")
