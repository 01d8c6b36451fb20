"""The one training loop: every learner, table or network, from every caller (``ttt train``,
:func:`tttlab.train`, the web lab's jobs, which are ``ttt train`` processes, and ``ttt
sweep``).

It runs a :class:`~tttlab.training.runs.Run` in batches and, between batches, computes the
exact curve points, writes checkpoints, tells its watchers (a progress display, an event
stream) and looks at signals: Ctrl-C or SIGTERM stops the run at the end of the batch, and
what was learned is saved. At the end it saves the agent file atomically, judges the agent
exactly where that is routine, writes the log and the curve, and returns ``ttt train
--json``'s summary.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tttlab.agents import Agent
from tttlab.errors import TrainingDiverged
from tttlab.evaluation import evaluate_seats
from tttlab.evaluation.curves import curve_point, plot_curve, routine_judging
from tttlab.training.runs import Run
from tttlab.training.signals import StopOnSignal
from tttlab.training.watchers import Tick, Watcher

__all__ = ["Outputs", "Result", "drive"]


@dataclass(frozen=True)
class Outputs:
    """The files a run writes (each optional).

    Attributes:
        out: the agent file, written at the end (and on an interruption).
        curve: the learning curve as a PNG.
        log: the curve points as JSON lines.
        checkpoint: the checkpoint file, written every ``checkpoint_every`` episodes and
            when the run is interrupted.
        checkpoint_every: episodes between checkpoints.
    """

    out: Path | None = None
    curve: Path | None = None
    log: Path | None = None
    checkpoint: Path | None = None
    checkpoint_every: int | None = None


@dataclass
class Result:
    """What a run left: the agent, ``ttt train --json``'s summary, the curve points."""

    agent: Agent
    summary: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False

    @property
    def trained(self) -> int:
        """Episodes trained in this process (fewer than the total after a resume)."""
        first = self.summary["resumed_from"] or 0
        return int(self.summary["episodes"]) - int(first)


def _crossed(before: int, after: int, every: int) -> bool:
    return after // every > before // every


def drive(
    run: Run,
    *,
    outputs: Outputs | None = None,
    eval_every: int | None = None,
    points: bool = False,
    watchers: Sequence[Watcher] = (),
    signals: bool = True,
    judge: bool = True,
) -> Result:
    """Train ``run`` to the end (or until a signal), then save and judge it.

    Args:
        outputs: the files to write.
        eval_every: episodes between curve points (default: 20 points over the run).
        points: compute curve points even if no file or watcher asks for them.
        watchers: told of each batch, of the save and of the end.
        signals: stop cleanly on Ctrl-C and SIGTERM (in the main thread).
        judge: judge the agent exactly at the end where that is routine
            (:func:`tttlab.evaluation.curves.routine_judging`).
    """
    files = outputs or Outputs()
    every = eval_every or max(1, run.total // 20)
    want = points or files.curve is not None or files.log is not None
    want = want or any(w.wants_points for w in watchers)
    records: list[dict[str, Any]] = []
    if want:
        records.append(curve_point(run.agent(), run.geometry, run.seats, run.seed, run.done))
    started = time.perf_counter()
    first = run.done
    checkpoint_every = files.checkpoint_every if files.checkpoint is not None else None
    try:
        with StopOnSignal(signals) as stop:
            while run.remaining > 0 and not stop.requested:
                before = run.done
                limit = min(run.remaining, run.step, every - before % every)
                if checkpoint_every is not None:
                    limit = min(limit, checkpoint_every - before % checkpoint_every)
                try:
                    metrics = run.advance(limit)
                except TrainingDiverged as error:
                    raise _diverged(run, files, error) from None
                done = run.done
                if (
                    checkpoint_every is not None
                    and files.checkpoint is not None
                    and _crossed(before, done, checkpoint_every)
                    and run.remaining > 0
                ):
                    run.save(files.checkpoint, checkpoint=True)
                point = None
                if want and (_crossed(before, done, every) or run.remaining == 0):
                    point = curve_point(run.agent(), run.geometry, run.seats, run.seed, done)
                    records.append(point)
                elapsed = max(time.perf_counter() - started, 1e-9)
                tick = Tick(
                    run.algorithm,
                    run.unit,
                    done,
                    run.total,
                    (done - first) / elapsed,
                    point,
                    metrics,
                )
                for watcher in watchers:
                    watcher.progress(tick)
        interrupted = stop.requested
        seconds = time.perf_counter() - started
        return _finish(run, files, watchers, records, interrupted, seconds, first, judge)
    finally:
        for watcher in watchers:
            watcher.close()


def _diverged(run: Run, files: Outputs, error: TrainingDiverged) -> TrainingDiverged:
    """The run stopped where its network stopped being finite: no agent file, and the
    checkpoint (when one is kept) holds the last finite state."""
    if files.checkpoint is None:
        return TrainingDiverged(f"{error}; nothing was saved (--checkpoint keeps a state)")
    run.save(files.checkpoint, checkpoint=True)
    return TrainingDiverged(
        f"{error}; {files.checkpoint} holds the last finite state ({run.done:,} {run.unit}), "
        "which --resume continues"
    )


def _finish(
    run: Run,
    files: Outputs,
    watchers: Sequence[Watcher],
    records: list[dict[str, Any]],
    interrupted: bool,
    seconds: float,
    first: int,
    judge: bool,
) -> Result:
    """Save, judge, write the curve, and tell the watchers."""
    if files.out is not None:
        for watcher in watchers:
            watcher.saving()  # a reader that is gone stops the save here
        run.save(files.out)
    if interrupted and files.checkpoint is not None:
        run.save(files.checkpoint, checkpoint=True)
    agent = run.agent(label=files.out.name if files.out is not None else run.algorithm)
    summary: dict[str, Any] = {
        "algorithm": run.algorithm,
        "board": run.geometry.name,
        "episodes": run.done,
        "seed": run.seed,
        "seconds": round(seconds, 3),
        "episodes_per_second": round((run.done - first) / max(seconds, 1e-9)),
        "resumed_from": run.resumed_from,
        "out": None if files.out is None else str(files.out),
        "hyperparameters": run.header(),
    }
    if judge and routine_judging(run.geometry):
        reports = evaluate_seats(agent, run.geometry)
        summary["evaluation"] = {seat: r.as_json() for seat, r in reports.items()}
    if records:
        if files.log is not None:
            files.log.write_text("".join(json.dumps(r) + "\n" for r in records))
        if files.curve is not None:
            title = f"{run.algorithm} on {run.geometry.name}, seed {run.seed}"
            plot_curve(records, files.curve, title)
    try:
        for watcher in watchers:
            watcher.finished(summary, interrupted)
    except BrokenPipeError:
        # The reader of the events is gone (the web server died): it will never learn of
        # this agent, so no file is left behind.
        if files.out is not None:
            files.out.unlink(missing_ok=True)
        raise
    return Result(agent, summary, records, interrupted)
