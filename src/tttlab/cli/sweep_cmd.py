"""``ttt sweep``: many runs (algorithms × episodes × seeds × ``--set`` values), each trained
and judged exactly, into one resumable CSV; a summary table, and optionally a plot."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

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
    shown_option,
    writable_target,
)
from tttlab.game import Geometry
from tttlab.hyperparameters import HYPERPARAMETERS
from tttlab.sweep import (
    RayCluster,
    ResultsFile,
    SweepError,
    parse_episodes,
    parse_seeds,
    parse_sets,
    plan_runs,
    plot_summary,
    run_local,
    summarise,
)


@click.command("sweep")
@click.argument("algorithms", nargs=-1, required=True)
@board_options
@click.option(
    "--episodes", required=True, help="Episode counts, comma-separated (5000,10000,20000)."
)
@click.option("--seeds", default="0-9", show_default=True, help="Seeds: N, A-B or a comma list.")
@click.option(
    "--set",
    "sets",
    multiple=True,
    help="A hyperparameter and its values, NAME=V1,V2 (repeatable), by its ttt train option "
    "without the dashes: " + ", ".join(h.option[2:] for h in HYPERPARAMETERS) + ". "
    "Widths take ':' between layers, none for no layers (hidden=64:64,128:128; conv=none,32:32).",
)
@file_option(
    "--out",
    "out_path",
    "Results CSV: one row per run; finished rows are skipped when run again.",
    required=True,
)
@file_option("--plot", "plot_path", "Draw the share of unbeatable seeds against episodes (PNG).")
@click.option(
    "--workers",
    type=click.IntRange(min=1, max=1024),
    default=None,
    help="Local worker processes (default: every core).",
)
@click.option(
    "--address",
    default=None,
    help="Run on the Ray cluster at HOST:PORT (default: $RAY_ADDRESS, else locally).",
)
@shown_option(
    "--lost-after",
    FiniteFloat(1, 3600),
    15.0,
    "Seconds without an answer from the cluster before the sweep stops (rows kept).",
)
@json_option
def sweep_command(
    algorithms: tuple[str, ...],
    board: Geometry | None,
    k: int | None,
    episodes: str,
    seeds: str,
    sets: tuple[str, ...],
    out_path: Path,
    plot_path: Path | None,
    workers: int | None,
    address: str | None,
    lost_after: float,
    as_json: bool,
) -> None:
    """Train and judge every combination of ALGORITHMS, --episodes, --seeds and --set."""
    raise_interrupts()  # a Ctrl-C stops the workers and says what was saved
    geometry = geometry_from(board, k)
    address = address or os.environ.get("RAY_ADDRESS") or None
    try:
        runs = plan_runs(
            list(algorithms),
            geometry,
            parse_episodes(episodes),
            parse_seeds(seeds),
            parse_sets(sets),
        )
        writable_target(out_path, "'--out'")
        if plot_path is not None:
            writable_target(plot_path, "'--plot'")
        results = ResultsFile(out_path)
        cluster = RayCluster(address) if address else None
    except SweepError as error:
        raise CommandError(str(error)) from None
    pending = results.pending(runs)
    where = f"Ray cluster {address}" if address else "this machine"
    err.print(
        f"{len(runs):,} runs, {len(runs) - len(pending):,} already in {out_path}; "
        f"running {len(pending):,} on {where}."
    )
    started = time.perf_counter()
    progress = Progress(
        TextColumn("[bold]sweep"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[info]}"),
        console=err,
        transient=False,
        disable=not pending,
    )
    task = progress.add_task("sweep", total=len(pending), info="")
    finished = 0

    def on_row(row: dict[str, Any]) -> None:
        nonlocal finished
        results.append(row)
        finished += 1
        rate = finished / max(time.perf_counter() - started, 1e-9) * 60
        progress.update(task, advance=1, info=f"{rate:,.1f} runs/min")

    try:
        with progress:
            if cluster is not None:
                with cluster:
                    cluster.run(pending, on_row, lost_after=lost_after)
            elif pending:
                run_local(pending, on_row, workers)
    except SweepError as error:
        raise CommandError(str(error)) from None
    except KeyboardInterrupt:
        err.print(
            f"Interrupted: {finished:,} new rows saved to {out_path}; "
            "run the same command to finish the rest."
        )
        raise SystemExit(130) from None
    seconds = time.perf_counter() - started
    wanted = {run.key for run in runs}
    rows = [row for key, row in results.rows.items() if key in wanted]
    summary = summarise(rows)
    if plot_path is not None:
        plot_summary(
            summary, plot_path, f"{', '.join(dict.fromkeys(algorithms))} on {geometry.name}"
        )
    if as_json:
        print_json(
            {
                "board": geometry.name,
                "runs": len(runs),
                "ran": finished,
                "seconds": round(seconds, 3),
                "out": str(out_path),
                "summary": summary,
            }
        )
        return
    table = Table(title=f"Unbeatable on both seats ({geometry.name}), share of seeds")
    for column in ("configuration", "episodes", "seeds", "unbeatable", "share", "95% interval"):
        table.add_column(column, justify="left" if column == "configuration" else "right")
    for s in summary:
        table.add_row(
            s["configuration"],
            f"{s['episodes']:,}",
            str(s["seeds"]),
            str(s["unbeatable"]),
            f"{s['share']:.2f}",
            f"{s['low']:.2f}–{s['high']:.2f}",
        )
    out.print(table)
    out.print(
        f"{finished:,} runs in {seconds:.1f} s ({finished / max(seconds, 1e-9) * 60:,.1f} per "
        f"minute); rows in {out_path}" + (f", plot in {plot_path}" if plot_path else "") + "."
    )
