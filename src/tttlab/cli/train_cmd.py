"""``ttt train``: train any learner, judge it exactly and save it atomically, through the one
training driver (:mod:`tttlab.training`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tttlab.cli.common import (
    board_options,
    err,
    file_option,
    json_option,
    out,
    print_json,
    side_option,
    writable_target,
)
from tttlab.cli.loading import agent_for, choose_geometry, load_files
from tttlab.cli.options import hyperparameter_options
from tttlab.game import Geometry, Player
from tttlab.hyperparameters import LEARNERS, NETWORK_LEARNERS
from tttlab.training import ConsoleProgress, EventLog, Outputs, Watcher, drive, resume, start

__all__ = ["train_command"]


@click.command("train")
@click.argument("algorithm", type=click.Choice(LEARNERS))
@click.option(
    "--episodes",
    type=click.IntRange(min=1),
    default=None,
    help="Training games (required for table learners unless --resume; networks "
    "(alphazero, dqn, ppo): self-play games, default by board).",
)
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed (default 0).")
@file_option("--out", "out_path", "Agent file (.npz).", required=True)
@hyperparameter_options
@click.option(
    "--opponent",
    default=None,
    help="Table learners: train one seat against this fixed agent (name or file).",
)
@side_option("The learning seat against --opponent (default X).")
@file_option("--curve", "curve", "Draw the exact learning curve (PNG).")
@file_option("--log", "log_path", "Write the curve's points as JSON lines.")
@file_option(
    "--events",
    "events_path",
    "Write progress and exact metrics as JSON lines while training ('-': stdout).",
    dash=True,
)
@click.option(
    "--eval-every",
    type=click.IntRange(min=1),
    default=None,
    help="Episodes between evaluations for --curve/--log (default: 20 points).",
)
@click.option(
    "--checkpoint-every",
    type=click.IntRange(min=1),
    default=None,
    help="Write a resumable checkpoint every N episodes (and on Ctrl-C / SIGTERM).",
)
@file_option("--checkpoint", "checkpoint_path", "Checkpoint file (default: OUT with .ckpt.npz).")
@file_option(
    "--resume", "resume_path", "Continue from a checkpoint; the result equals an uninterrupted run."
)
@board_options
@json_option
def train_command(
    algorithm: str,
    episodes: int | None,
    seed: int | None,
    out_path: Path,
    opponent: str | None,
    side: str | None,
    curve: Path | None,
    log_path: Path | None,
    events_path: Path | None,
    eval_every: int | None,
    checkpoint_every: int | None,
    checkpoint_path: Path | None,
    resume_path: Path | None,
    board: Geometry | None,
    k: int | None,
    as_json: bool,
    **hyperparameters: Any,
) -> None:
    """Train ALGORITHM (td, q, sarsa, expected-sarsa, double-q, alphazero, dqn, ppo); save
    to --out."""
    if as_json and events_path is not None and str(events_path) == "-":
        raise click.BadParameter(
            "--events - and --json both write to standard output", param_hint="'--events'"
        )
    given = {name: value for name, value in hyperparameters.items() if value is not None}
    outputs = _outputs(
        out_path,
        curve,
        log_path,
        events_path,
        checkpoint_every,
        checkpoint_path,
        resuming=resume_path is not None,
    )
    files = load_files([opponent] if opponent else [])  # an opponent file is read once
    if resume_path is not None:
        fixed: dict[str, object] = {"--episodes": episodes, "--seed": seed, "--board": board}
        fixed |= {"--k": k}
        fixed |= {"--opponent": opponent, "--as": side}
        fixed |= {"--" + name.replace("_", "-"): value for name, value in given.items()}
        clash = [name for name, value in fixed.items() if value is not None]
        if clash:
            raise click.UsageError(
                f"{', '.join(clash)} cannot change a resumed run (the checkpoint fixes them)"
            )
        with err.status(f"Preparing {algorithm} from {resume_path}…"):
            run = resume(resume_path, algorithm)
    else:
        if episodes is None and algorithm not in NETWORK_LEARNERS:
            raise click.UsageError("Missing option '--episodes' (or --resume a checkpoint)")
        geometry = choose_geometry(files, board, k)
        seat = None if side is None else Player.parse(side)
        fixed_agent = agent_for(opponent, geometry, files) if opponent is not None else None
        with err.status(f"Preparing {algorithm} on {geometry.name}…"):
            run = start(
                algorithm,
                geometry,
                episodes,
                0 if seed is None else seed,
                given,
                opponent=opponent,
                side=seat,
                opponent_agent=fixed_agent,
            )
    events = EventLog(events_path)
    watchers: list[Watcher] = [ConsoleProgress(err), events]
    result = drive(run, outputs=outputs, eval_every=eval_every, watchers=watchers)
    summary = result.summary
    if result.interrupted:
        err.print(
            f"Interrupted after {run.done:,} of {run.total:,} {run.unit}; "
            f"saved what was learned to {out_path}."
        )
        raise SystemExit(130)
    if as_json:
        print_json(summary)
    elif not events.on_stdout:
        _print_summary(summary, result.trained, run.unit, curve)


def _outputs(
    out_path: Path,
    curve: Path | None,
    log_path: Path | None,
    events_path: Path | None,
    checkpoint_every: int | None,
    checkpoint_path: Path | None,
    resuming: bool,
) -> Outputs:
    """The files to write, each refused at once if it could not be written. A checkpoint is
    kept when asked for in any way: every N episodes, at a given path (then written if the
    run is interrupted), or when continuing one."""
    writable_target(out_path, "'--out'")
    for extra, option in ((curve, "'--curve'"), (log_path, "'--log'")):
        if extra is not None:
            writable_target(extra, option)
    if events_path is not None and str(events_path) != "-":
        writable_target(events_path, "'--events'")
    if checkpoint_every is not None or resuming or checkpoint_path is not None:
        checkpoint_path = checkpoint_path or out_path.with_name(out_path.stem + ".ckpt.npz")
        writable_target(checkpoint_path, "'--checkpoint'")
    return Outputs(out_path, curve, log_path, checkpoint_path, checkpoint_every)


def _print_summary(summary: dict[str, Any], trained: int, unit: str, curve: Path | None) -> None:
    """The human form of ``ttt train --json``: what ran, then each seat's exact report."""
    first = summary["resumed_from"]
    out.print(
        f"Trained {summary['algorithm']} for {trained:,} {unit}"
        f"{f' (resumed at {first:,})' if first is not None else ''} in "
        f"{summary['seconds']:.2f} s ({summary['episodes_per_second']:,} "
        f"{unit.rsplit(' ', 1)[-1]}/s); saved to {summary['out']}."
    )
    for seat, report in summary.get("evaluation", {}).items():
        res = report["vs_random"]
        out.print(
            f"  as {seat}: worst case {report['worst_case']:+d}, optimal share "
            f"{report['optimal_share']:.4f}, vs random W {res['win']:.4f} "
            f"D {res['draw']:.4f} L {res['loss']:.4f}"
        )
    if "evaluation" not in summary:
        out.print(f"  judge it with: ttt eval {summary['out']}")
    if curve is not None:
        out.print(f"Learning curve: {curve}")
