"""``ttt train``: train a tabular learner, evaluate it exactly and save it atomically."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import click
from rich.progress import Progress

from tttlab import api
from tttlab.agents import AgentError
from tttlab.agents.learned import LearnedAgent
from tttlab.api import EVAL_LIMIT, batch_size, curve_point
from tttlab.cli.common import (
    CommandError,
    FiniteFloat,
    board_options,
    err,
    geometry_from,
    json_option,
    print_json,
    writable_target,
)
from tttlab.cli.loading import agent_for, choose_geometry, load_files
from tttlab.cli.neural_train import (
    NETWORK_ALGORITHMS,
    NEURAL_OPTIONS,
    parse_hidden,
    train_network,
)
from tttlab.cli.training import EventLog, StopOnSignal, print_summary, progress_bar, short
from tttlab.evaluate.curves import plot_curve
from tttlab.game import DEFAULT, Geometry, Player, StateSpaceTooLarge, check_enumerable
from tttlab.io import load_agent_file, save_agent_file
from tttlab.train import (
    ALGORITHMS,
    SCHEDULE_KINDS,
    ConfigError,
    TrainConfig,
    Trainer,
    config_from_checkpoint,
    config_from_options,
)


def _unit_interval(label: str) -> click.FloatRange:
    return FiniteFloat(0.0, 1.0)


@click.command("train")
@click.argument("algorithm", type=click.Choice((*ALGORITHMS, *NETWORK_ALGORITHMS)))
@click.option(
    "--episodes",
    type=click.IntRange(min=1),
    default=None,
    help="Number of training games (required for tables unless --resume; alphazero and "
    "dqn: self-play games, default by board).",
)
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed (default 0).")
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Agent file to write (.npz).",
)
@click.option(
    "--epsilon",
    type=_unit_interval("epsilon"),
    default=None,
    help="Exploration rate (start value of its schedule).",
)
@click.option("--epsilon-end", type=_unit_interval("epsilon"), default=None)
@click.option("--epsilon-schedule", type=click.Choice(SCHEDULE_KINDS), default=None)
@click.option(
    "--alpha",
    type=_unit_interval("alpha"),
    default=None,
    help="Learning rate (start value of its schedule; dqn: adam's step size, default 0.001).",
)
@click.option("--alpha-end", type=_unit_interval("alpha"), default=None)
@click.option("--alpha-schedule", type=click.Choice(SCHEDULE_KINDS), default=None)
@click.option(
    "--gamma",
    type=FiniteFloat(0.0, 1.0),
    default=None,
    help="Discount for the Q family and dqn (default 1).",
)
@click.option(
    "--draw-reward",
    type=FiniteFloat(0.0, 1.0),
    default=None,
    help="TD: value of a draw (default 0.5; the course used 0).",
)
@click.option(
    "--opponent",
    default=None,
    help="Train one seat against this fixed agent (name or file) instead of self-play.",
)
@click.option(
    "--as",
    "side",
    type=click.Choice(["X", "O", "x", "o"]),
    default=None,
    help="The learning seat against --opponent (default X).",
)
@click.option(
    "--curve",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Draw the learning curve (exact metrics) to this PNG.",
)
@click.option(
    "--log",
    "log_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the exact metrics as JSON lines.",
)
@click.option(
    "--events",
    "events_path",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    default=None,
    help="Write progress and exact metrics as JSON lines while training ('-': stdout).",
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
@click.option(
    "--checkpoint",
    "checkpoint_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Checkpoint file (default: OUT with .ckpt.npz).",
)
@click.option(
    "--resume",
    "resume_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Continue from a checkpoint; the result equals an uninterrupted run.",
)
@click.option(
    "--simulations",
    type=click.IntRange(1, 4096),
    default=None,
    help="alphazero: search simulations per self-play move (default 32).",
)
@click.option(
    "--batch",
    type=click.IntRange(1, 1 << 20),
    default=None,
    help="alphazero, dqn: games played at once per iteration (default 256, 128).",
)
@click.option(
    "--hidden", default=None, help="alphazero, dqn: hidden layer widths (default 128,128)."
)
@click.option(
    "--learning-rate",
    type=FiniteFloat(0.0, 1.0, min_open=True),
    default=None,
    help="alphazero: adam's step size (default 0.001; dqn: --alpha).",
)
@click.option(
    "--updates",
    type=click.IntRange(0, 1 << 16),
    default=None,
    help="alphazero, dqn: gradient steps per iteration (default 32, 64).",
)
@click.option(
    "--minibatch",
    type=click.IntRange(1, 1 << 20),
    default=None,
    help="alphazero, dqn: positions per gradient step (default 256).",
)
@click.option(
    "--replay",
    type=click.IntRange(1, 1 << 12),
    default=None,
    help="alphazero, dqn: iterations of games kept for training (default 8, 32).",
)
@click.option(
    "--opening",
    type=click.IntRange(0, 64),
    default=None,
    help="alphazero: at most this many random opening moves per game (default cells-2).",
)
@click.option(
    "--target-every",
    type=click.IntRange(1, 1 << 24),
    default=None,
    help="dqn: gradient steps between copies to the target network (default 64).",
)
@click.option(
    "--double/--no-double",
    default=None,
    help="dqn: Double DQN targets (default on).",
)
@click.option(
    "--perspective",
    type=click.Choice(["mover", "x"]),
    default=None,
    help="dqn: values for the mover (default) or for X, which O minimises.",
)
@board_options
@json_option
def train_command(
    algorithm: str,
    episodes: int | None,
    seed: int | None,
    out_path: Path,
    epsilon: float | None,
    epsilon_end: float | None,
    epsilon_schedule: str | None,
    alpha: float | None,
    alpha_end: float | None,
    alpha_schedule: str | None,
    gamma: float | None,
    draw_reward: float | None,
    opponent: str | None,
    side: str | None,
    curve: Path | None,
    log_path: Path | None,
    events_path: Path | None,
    eval_every: int | None,
    checkpoint_every: int | None,
    checkpoint_path: Path | None,
    resume_path: Path | None,
    simulations: int | None,
    batch: int | None,
    hidden: str | None,
    learning_rate: float | None,
    updates: int | None,
    minibatch: int | None,
    replay: int | None,
    opening: int | None,
    target_every: int | None,
    double: bool | None,
    perspective: str | None,
    board: Geometry | None,
    k: int | None,
    as_json: bool,
) -> None:
    """Train ALGORITHM (td, q, sarsa, expected-sarsa, double-q, alphazero, dqn); save to
    --out."""
    neural = {
        "--simulations": simulations,
        "--batch": batch,
        "--hidden": hidden,
        "--learning-rate": learning_rate,
        "--updates": updates,
        "--minibatch": minibatch,
        "--replay": replay,
        "--opening": opening,
        "--target-every": target_every,
        "--double": double,
        "--perspective": perspective,
    }
    table = {
        "--epsilon": epsilon,
        "--epsilon-end": epsilon_end,
        "--epsilon-schedule": epsilon_schedule,
        "--alpha": alpha,
        "--alpha-end": alpha_end,
        "--alpha-schedule": alpha_schedule,
        "--gamma": gamma,
        "--draw-reward": draw_reward,
        "--opponent": opponent,
        "--as": side,
    }
    if as_json and events_path is not None and str(events_path) == "-":
        raise click.BadParameter(
            "--events - and --json both write to standard output", param_hint="'--events'"
        )
    if events_path is not None and str(events_path) != "-":
        writable_target(events_path, "'--events'")
    if algorithm in NETWORK_ALGORITHMS:
        takes = NEURAL_OPTIONS[algorithm]
        given = {**table, **neural}
        _refuse(
            {n: v for n, v in given.items() if n not in takes}, f"does not apply to {algorithm}"
        )
        if resume_path is not None:
            _refuse(
                {**given, "--episodes": episodes, "--seed": seed, "--board": board, "--k": k},
                "cannot change a resumed run (the checkpoint fixes them)",
            )
        chosen: dict[str, Any] = {takes[n]: v for n, v in given.items() if v is not None}
        if "hidden" in chosen:
            chosen["hidden"] = parse_hidden(hidden)
        train_network(
            algorithm,
            episodes=episodes,
            seed=seed,
            out_path=out_path,
            hyperparameters=chosen,
            curve=curve,
            log_path=log_path,
            events_path=events_path,
            eval_every=eval_every,
            checkpoint_every=checkpoint_every,
            checkpoint_path=checkpoint_path,
            resume_path=resume_path,
            geometry=geometry_from(board or DEFAULT, k),
            as_json=as_json,
        )
        return
    for name, value in neural.items():
        users = [a for a in NETWORK_ALGORITHMS if name in NEURAL_OPTIONS[a]]
        _refuse({name: value}, f"applies to {' and '.join(users)} only")
    resumed: tuple[TrainConfig, dict[str, Any], int, dict[str, Any]] | None = None
    if resume_path is not None:
        _refuse(
            {"--episodes": episodes, "--seed": seed, **table, "--board": board, "--k": k},
            "cannot change a resumed run (the checkpoint fixes them)",
        )
        resumed = _load_checkpoint(resume_path, algorithm)
        config = resumed[0]
        episodes, seed, geometry, opponent = (
            config.episodes,
            config.seed,
            config.geometry,
            config.opponent,
        )
    elif episodes is None:
        raise click.UsageError("Missing option '--episodes' (or --resume a checkpoint)")
    else:
        seed = 0 if seed is None else seed
    files = load_files([opponent] if opponent else [])  # an opponent file is read once
    if resumed is None:
        geometry = choose_geometry(files, board, k)
    try:
        check_enumerable(geometry)
    except StateSpaceTooLarge as error:
        raise CommandError(f"cannot train a full table on {geometry.name}: {error}") from None
    writable_target(out_path, "'--out'")
    for extra, option in ((curve, "'--curve'"), (log_path, "'--log'")):
        if extra is not None:
            writable_target(extra, option)
    # A checkpoint is kept when asked for in any way: every N episodes, at a given path
    # (then written if the run is interrupted), or when continuing one.
    if checkpoint_every is not None or resume_path is not None or checkpoint_path is not None:
        checkpoint_path = checkpoint_path or out_path.with_name(out_path.stem + ".ckpt.npz")
        writable_target(checkpoint_path, "'--checkpoint'")
    if resumed is None:
        if side is not None and opponent is None:
            raise click.BadParameter(
                "--as needs --opponent (self-play trains both seats)", param_hint="'--as'"
            )
        assert episodes is not None
        seat = None if opponent is None else Player.parse(side or "X")
        options = {
            "epsilon": epsilon,
            "epsilon-end": epsilon_end,
            "epsilon-schedule": epsilon_schedule,
            "alpha": alpha,
            "alpha-end": alpha_end,
            "alpha-schedule": alpha_schedule,
            "gamma": gamma,
            "draw-reward": draw_reward,
        }
        try:
            config = config_from_options(
                algorithm, episodes, seed, geometry, options, seat=seat, opponent=opponent
            )
        except ConfigError as error:
            raise CommandError(str(error)) from None
    fixed = agent_for(opponent, geometry, files) if opponent is not None else None
    with err.status(f"Preparing {geometry.name} tables…"):
        trainer = Trainer(config, fixed)
    if resumed is not None:
        _, tables, done, rng_state = resumed
        try:
            trainer.restore(tables, done, rng_state)
        except ConfigError as error:
            raise CommandError(f"{resume_path}: {error}") from None
    can_evaluate = trainer.space.size <= EVAL_LIMIT
    events = EventLog(events_path)
    want_curve = curve is not None or log_path is not None or events.wanted
    every = eval_every or max(1, episodes // 20)
    records: list[dict[str, Any]] = []
    if want_curve:
        records.append(curve_point(trainer, 0))

    started = time.perf_counter()
    first = trainer.done  # above 0 when resuming
    progress: Progress | None = None
    task = None
    latest = ""
    with StopOnSignal() as stop:
        try:
            while trainer.remaining > 0 and not stop.requested:
                step = min(trainer.remaining, batch_size(episodes), every - trainer.done % every)
                if checkpoint_every is not None:
                    step = min(step, checkpoint_every - trainer.done % checkpoint_every)
                trainer.run(step)
                if (
                    checkpoint_every is not None
                    and checkpoint_path is not None
                    and trainer.done % checkpoint_every == 0
                    and trainer.remaining > 0
                ):
                    _save_checkpoint(trainer, checkpoint_path, seed)
                point = None
                if want_curve and (trainer.done % every == 0 or trainer.remaining == 0):
                    point = curve_point(trainer, trainer.done)
                    records.append(point)
                    latest = short(point)
                elapsed = time.perf_counter() - started
                events.progress(
                    trainer.done, episodes, (trainer.done - first) / max(elapsed, 1e-9), point
                )
                if progress is None and elapsed > 1.0 and trainer.remaining > 0:
                    progress = progress_bar()
                    progress.start()
                    task = progress.add_task(algorithm, total=episodes, info="")
                if progress is not None and task is not None:
                    rate = (trainer.done - first) / max(elapsed, 1e-9)
                    progress.update(
                        task, completed=trainer.done, info=f"{rate:,.0f} episodes/s {latest}"
                    )
        finally:
            if progress is not None:
                progress.stop()
    interrupted = stop.requested
    seconds = time.perf_counter() - started

    agent = trainer.agent(label=out_path.name)
    save_agent_file(
        out_path, agent, episodes=trainer.done, seed=seed, hyperparameters=config.header()
    )
    evaluation = api.evaluate(agent, geometry).to_dict() if can_evaluate else None
    events.done(out_path, trainer.done, interrupted, evaluation)
    events.close()
    if records:
        if log_path is not None:
            log_path.write_text("".join(json.dumps(r) + "\n" for r in records))
        if curve is not None:
            plot_curve(records, curve, f"{algorithm} on {geometry.name}, seed {seed}")
    if interrupted:
        err.print(
            f"Interrupted after {trainer.done:,} of {episodes:,} episodes; "
            f"saved what was learned to {out_path}."
        )
        raise SystemExit(130)

    summary: dict[str, Any] = {
        "algorithm": algorithm,
        "board": geometry.name,
        "episodes": trainer.done,
        "seed": seed,
        "seconds": round(seconds, 3),
        "episodes_per_second": round((trainer.done - first) / max(seconds, 1e-9)),
        "resumed_from": first if resumed is not None else None,
        "out": str(out_path),
        "hyperparameters": config.header(),
    }
    if evaluation is not None:
        summary["evaluation"] = evaluation
    if as_json:
        print_json(summary)
        return
    if events.on_stdout:
        return
    print_summary(summary, trained=trainer.done - first, unit="episodes", curve=curve)


def _refuse(given: dict[str, Any], reason: str) -> None:
    clash = [name for name, value in given.items() if value is not None]
    if clash:
        raise click.UsageError(f"{', '.join(clash)} {reason}")


def _save_checkpoint(trainer: Trainer, path: Path, seed: int) -> None:
    save_agent_file(
        path,
        trainer.agent(label=path.name),
        episodes=trainer.done,
        seed=seed,
        hyperparameters=trainer.config.header(),
        checkpoint=trainer.checkpoint(),
    )


def _load_checkpoint(
    path: Path, algorithm: str
) -> tuple[TrainConfig, dict[str, Any], int, dict[str, Any]]:
    try:
        agent = load_agent_file(path)
    except AgentError as error:
        raise CommandError(str(error)) from None
    data = agent.meta.get("checkpoint")
    if not isinstance(agent, LearnedAgent) or not isinstance(data, dict):
        raise CommandError(f"{path} is an agent file but not a checkpoint")
    try:
        config = config_from_checkpoint(data)
    except ConfigError as error:
        raise CommandError(f"{path}: {error}") from None
    if config.algorithm != algorithm:
        raise CommandError(f"{path} is a {config.algorithm} checkpoint, not {algorithm}")
    return config, agent.tables, int(data["done"]), dict(data["rng_state"])
