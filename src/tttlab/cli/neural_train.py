"""``ttt train alphazero`` and ``ttt train dqn``: the network learners behind the same
surface as the tables.

JAX is imported only here, and only when a network learner is asked for, so the base
install and every other command stay light.
"""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path
from typing import Any

import click
from rich.progress import Progress

from tttlab import api
from tttlab.agents import AgentError
from tttlab.agents.network import NetworkAgent
from tttlab.cli.common import CommandError, err, out, print_json, writable_target
from tttlab.cli.training import EventLog, StopOnSignal, print_summary, progress_bar, short
from tttlab.evaluate.curves import plot_curve
from tttlab.game import Geometry, Player
from tttlab.io import load_agent_file, save_network_file

__all__ = ["NETWORK_ALGORITHMS", "NEURAL_OPTIONS", "train_network"]

NETWORK_ALGORITHMS = ("alphazero", "dqn")
_SHARED = {
    "--batch": "batch",
    "--hidden": "hidden",
    "--updates": "updates",
    "--minibatch": "minibatch",
    "--replay": "replay",
}
#: Per network learner: the command-line options it takes → its hyperparameters.
NEURAL_OPTIONS: dict[str, dict[str, str]] = {
    "alphazero": {
        **_SHARED,
        "--simulations": "simulations",
        "--learning-rate": "learning_rate",
        "--opening": "opening",
    },
    "dqn": {
        "--epsilon": "epsilon",
        "--epsilon-end": "epsilon_end",
        "--epsilon-schedule": "epsilon_schedule",
        "--alpha": "alpha",
        "--alpha-end": "alpha_end",
        "--alpha-schedule": "alpha_schedule",
        "--gamma": "gamma",
        **_SHARED,
        "--target-every": "target_every",
        "--double": "double",
        "--perspective": "perspective",
    },
}
_CLASSES = {
    "alphazero": ("AlphaZeroConfig", "AlphaZeroTrainer"),
    "dqn": ("DQNConfig", "DQNTrainer"),
}


def _neural(algorithm: str) -> tuple[Any, Any, Any]:
    """(config class, trainer class, default episodes) of a network learner, or one line
    saying how to install the extra."""
    try:
        module = importlib.import_module(f"tttlab.neural.{algorithm}")
    except ImportError as error:
        raise CommandError(
            f"network learners need the neural extra ({error.name} is missing): "
            "pip install 'tttlab[neural]'"
        ) from None
    config, trainer = _CLASSES[algorithm]
    return getattr(module, config), getattr(module, trainer), module.default_episodes


def train_network(
    algorithm: str,
    *,
    episodes: int | None,
    seed: int | None,
    out_path: Path,
    hyperparameters: dict[str, Any],
    curve: Path | None,
    log_path: Path | None,
    events_path: Path | None,
    eval_every: int | None,
    checkpoint_every: int | None,
    checkpoint_path: Path | None,
    resume_path: Path | None,
    geometry: Geometry,
    as_json: bool,
) -> None:
    """Train a network learner; the caller has checked the options that do not apply."""
    config_class, trainer_class, default_episodes = _neural(algorithm)
    resumed: tuple[Any, dict[str, Any], int] | None = None
    if resume_path is not None:
        resumed = _load_checkpoint(config_class, resume_path, algorithm)
        config = resumed[0]
    else:
        try:
            config = config_class.from_options(
                geometry,
                episodes if episodes is not None else default_episodes(geometry),
                0 if seed is None else seed,
                hyperparameters,
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
    writable_target(out_path, "'--out'")
    for extra, option in ((curve, "'--curve'"), (log_path, "'--log'")):
        if extra is not None:
            writable_target(extra, option)
    if checkpoint_every is not None or resume_path is not None or checkpoint_path is not None:
        checkpoint_path = checkpoint_path or out_path.with_name(out_path.stem + ".ckpt.npz")
        writable_target(checkpoint_path, "'--checkpoint'")

    with err.status(f"Compiling self-play for {config.geometry.name}…"):
        trainer = trainer_class(config)
        if resumed is not None:
            try:
                trainer.restore(resumed[1], resumed[2])
            except ValueError as error:
                raise CommandError(f"{resume_path}: {error}") from None
    total = config.iterations * config.games_per_iteration
    every = eval_every or max(1, total // 20)
    seats = (Player.X, Player.O)
    events = EventLog(events_path)
    want_curve = curve is not None or log_path is not None or events.wanted
    records: list[dict[str, Any]] = []
    if want_curve:
        records.append(api.agent_point(trainer.agent(), config.geometry, seats, config.seed, 0))

    started = time.perf_counter()
    first = trainer.done
    progress: Progress | None = None
    task = None
    latest = ""
    with StopOnSignal() as stop:
        try:
            while trainer.remaining > 0 and not stop.requested:
                before = trainer.done
                losses = trainer.run(1)
                done = trainer.done
                if (
                    checkpoint_every is not None
                    and checkpoint_path is not None
                    and done // checkpoint_every > before // checkpoint_every
                    and trainer.remaining > 0
                ):
                    _save(trainer, checkpoint_path, checkpoint=True)
                point = None
                if want_curve and (done // every > before // every or trainer.remaining == 0):
                    point = api.agent_point(
                        trainer.agent(), config.geometry, seats, config.seed, done
                    )
                    records.append(point)
                    latest = short(point)
                elapsed = time.perf_counter() - started
                events.progress(done, total, (done - first) / max(elapsed, 1e-9), point)
                if progress is None and elapsed > 1.0 and trainer.remaining > 0:
                    progress = progress_bar()
                    progress.start()
                    task = progress.add_task(algorithm, total=total, info="")
                if progress is not None and task is not None:
                    rate = (done - first) / max(elapsed, 1e-9)
                    info = f"{rate:,.0f} games/s loss {losses.get('loss', 0):.3f}"
                    if "epsilon" in losses:
                        info += f" ε {losses['epsilon']:.2f}"
                    info += f" {latest}"
                    progress.update(task, completed=done, info=info)
        finally:
            if progress is not None:
                progress.stop()
    interrupted = stop.requested
    seconds = time.perf_counter() - started
    agent = _save(trainer, out_path, checkpoint=False)
    if interrupted and checkpoint_path is not None:
        _save(trainer, checkpoint_path, checkpoint=True)
    fits = api.state_space_fits(config.geometry)
    evaluation = api.evaluate(agent, config.geometry).to_dict() if fits else None
    events.done(out_path, trainer.done, interrupted, evaluation)
    events.close()
    if records:
        if log_path is not None:
            log_path.write_text("".join(json.dumps(r) + "\n" for r in records))
        if curve is not None:
            title = f"{algorithm} on {config.geometry.name}, seed {config.seed}"
            plot_curve(records, curve, title)
    if interrupted:
        err.print(
            f"Interrupted after {trainer.done:,} of {total:,} games; "
            f"saved what was learned to {out_path}."
        )
        raise SystemExit(130)
    summary: dict[str, Any] = {
        "algorithm": algorithm,
        "board": config.geometry.name,
        "episodes": trainer.done,
        "seed": config.seed,
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
    print_summary(summary, trained=trainer.done - first, unit="self-play games", curve=curve)
    if "evaluation" not in summary:
        out.print(f"  judge it with: ttt eval {out_path}")


def _save(trainer: Any, path: Path, *, checkpoint: bool) -> NetworkAgent:
    agent: NetworkAgent = trainer.agent(label=path.name)
    config = trainer.config
    save_network_file(
        path,
        agent,
        episodes=trainer.done,
        seed=config.seed,
        hyperparameters=config.header(),
        checkpoint={"iteration": trainer.iteration, "episodes": config.episodes}
        if checkpoint
        else None,
        state=trainer.checkpoint_arrays() if checkpoint else None,
    )
    return agent


def _load_checkpoint(
    config_class: Any, path: Path, algorithm: str
) -> tuple[Any, dict[str, Any], int]:
    try:
        agent = load_agent_file(path)
    except AgentError as error:
        raise CommandError(str(error)) from None
    data = agent.meta.get("checkpoint")
    if not isinstance(agent, NetworkAgent) or not isinstance(data, dict):
        raise CommandError(f"{path} is an agent file but not a {algorithm} checkpoint")
    if agent.algorithm != algorithm:
        raise CommandError(f"{path} is a {agent.algorithm} checkpoint, not {algorithm}")
    try:
        config = config_class.from_header(
            agent.geometry,
            int(data["episodes"]),
            int(agent.meta["seed"]),
            agent.meta["hyperparameters"],
        )
        iteration = int(data["iteration"])
    except (KeyError, TypeError, ValueError) as error:
        raise CommandError(f"{path}: a damaged checkpoint ({error})") from None
    return config, dict(agent.meta.get("state", {})), iteration


def parse_hidden(value: str | None) -> tuple[int, ...] | None:
    """``"128,128"`` → (128, 128)."""
    if value is None:
        return None
    try:
        widths = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is not a list of widths such as 128,128", param_hint="'--hidden'"
        ) from None
    return widths
