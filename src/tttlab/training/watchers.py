"""What watches a training run: a progress display, an event stream for other programs, a
callback. The driver (:func:`tttlab.training.drive`) tells each one the same things. Its
plain lines off a terminal (:class:`StatusLine`) serve ``ttt eval``'s long work as well."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.status import Status

from tttlab.limits import PLAIN_LINE_SECONDS

__all__ = ["Callback", "ConsoleProgress", "EventLog", "StatusLine", "Tick", "Watcher", "short"]


@dataclass(frozen=True)
class Tick:
    """The state of a run after one batch."""

    algorithm: str
    unit: str  # "episodes" or "self-play games"
    done: int
    total: int
    rate: float  # per second, since this process started training
    point: dict[str, Any] | None = None  # a curve point, when one was computed
    metrics: dict[str, float] = field(default_factory=dict)  # loss, epsilon, ...


class Watcher:
    """The driver's calls; each does nothing unless a watcher needs it."""

    #: Whether this watcher wants exact curve points (the driver computes them if any does).
    wants_points = False

    def progress(self, tick: Tick) -> None:
        """After every batch."""

    def saving(self) -> None:
        """Just before the agent file is written (may raise to stop the save)."""

    def finished(self, summary: dict[str, Any], interrupted: bool) -> None:
        """Once the agent file is written and judged (``summary`` is ``ttt train --json``)."""

    def close(self) -> None:
        """At the end, whatever happened (a display stops drawing)."""


def short(record: dict[str, Any]) -> str:
    """A curve point in a few words: the optimal share of each seat."""
    parts = [
        f"{seat}: optimal {record[seat]['optimal_share']:.3f}"
        for seat in ("X", "O")
        if seat in record
    ]
    return "| " + ", ".join(parts)


def _info(tick: Tick, latest: str) -> str:
    unit = tick.unit.rsplit(" ", 1)[-1]
    text = f"{tick.rate:,.0f} {unit}/s"
    if "loss" in tick.metrics:
        text += f" loss {tick.metrics['loss']:.3f}"
    if "epsilon" in tick.metrics:
        text += f" ε {tick.metrics['epsilon']:.2f}"
    return f"{text} {latest}".rstrip()


class StatusLine:
    """Where long work is, in one line of text: on a terminal the text of a spinner
    (``status``; none: nothing); anywhere else (a log file, CI), where a spinner shows
    nothing and a bar would be cut to the width rich guesses, a plain line at most every
    ``plain_every`` seconds."""

    def __init__(
        self, status: Status | None, console: Console, plain_every: float = PLAIN_LINE_SECONDS
    ):
        self.status, self.console, self.plain_every = status, console, plain_every
        self.live = console.is_terminal or console.is_jupyter
        self._last = time.monotonic()

    def show(self, text: str) -> None:
        if self.live:
            if self.status is not None:
                self.status.update(escape(text) + "…")
            return
        now = time.monotonic()
        if now - self._last >= self.plain_every:
            self._last = now
            self.console.print(text, markup=False, crop=False, overflow="ignore")


class ConsoleProgress(Watcher):
    """Progress for a person. On a terminal or in Jupyter, a rich progress bar that appears
    once a run has taken a second. Anywhere else (a log file, CI) a bar would be cut to the
    width rich guesses, so plain lines are written instead, at most one every
    ``plain_every`` seconds."""

    def __init__(
        self, console: Console | None = None, plain_every: float = PLAIN_LINE_SECONDS
    ) -> None:
        self.console = console or Console(stderr=True, highlight=False, soft_wrap=True)
        self.plain = StatusLine(None, self.console, plain_every)
        self.live = self.plain.live
        self._bar: Progress | None = None
        self._task: Any = None
        self._started = time.monotonic()
        self._latest = ""

    def progress(self, tick: Tick) -> None:
        if tick.point is not None:
            self._latest = short(tick.point)
        if not self.live:
            if tick.done < tick.total:
                share = 100 * tick.done / max(tick.total, 1)
                self.plain.show(
                    f"{tick.algorithm}: {tick.done:,} of {tick.total:,} {tick.unit} "
                    f"({share:.0f}%), {_info(tick, self._latest)}"
                )
            return
        now = time.monotonic()
        if self._bar is None:
            if now - self._started <= 1.0 or tick.done >= tick.total:
                return
            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.fields[info]}"),
                console=self.console,
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task(tick.algorithm, total=tick.total, info="")
        self._bar.update(self._task, completed=tick.done, info=_info(tick, self._latest))

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


class Callback(Watcher):
    """Calls ``function(done, total)`` after every batch."""

    def __init__(self, function: Callable[[int, int], None]) -> None:
        self.function = function

    def progress(self, tick: Tick) -> None:
        self.function(tick.done, tick.total)


class EventLog(Watcher):
    """``ttt train --events FILE`` (``-`` for standard output): JSON lines as training goes,
    for other programs (the web lab reads them), each flushed at once.

    - ``progress`` after each batch: ``episode``, ``episodes``, ``episodes_per_second`` and,
      at an evaluation point, ``metrics`` (the exact evaluation, as ``ttt eval --json``);
    - ``saving`` just before the agent file is written: if nobody reads the stream any more
      (the web server died), writing it fails and nothing is saved;
    - ``done`` once the file is written: ``agent``, ``episodes``, ``interrupted`` and
      ``evaluation``. If that line cannot be written either, the driver removes the file, so
      a trainer whose reader is gone never leaves an agent behind.
    """

    wants_points = True

    def __init__(self, target: Path | None) -> None:
        self._stream: IO[str] | None = None
        self._own = False
        if target is not None and str(target) == "-":
            self._stream = sys.stdout
        elif target is not None:
            self._stream = target.open("w", encoding="utf-8")
            self._own = True
        self.wants_points = self._stream is not None

    @property
    def on_stdout(self) -> bool:
        """Then the done line replaces the human summary on standard output."""
        return self._stream is sys.stdout

    def _write(self, event: dict[str, Any]) -> None:
        if self._stream is not None:
            self._stream.write(json.dumps(event) + "\n")
            self._stream.flush()

    def progress(self, tick: Tick) -> None:
        event: dict[str, Any] = {
            "event": "progress",
            "episode": tick.done,
            "episodes": tick.total,
            "episodes_per_second": round(tick.rate, 1),
        }
        if tick.point is not None:
            event["metrics"] = {k: v for k, v in tick.point.items() if k != "episode"}
        self._write(event)

    def saving(self) -> None:
        self._write({"event": "saving"})

    def finished(self, summary: dict[str, Any], interrupted: bool) -> None:
        event: dict[str, Any] = {
            "event": "done",
            "agent": summary["out"],
            "episodes": summary["episodes"],
            "interrupted": interrupted,
        }
        if "evaluation" in summary:
            event["evaluation"] = summary["evaluation"]
        self._write(event)

    def close(self) -> None:
        if self._own and self._stream is not None:
            self._stream.close()
            self._stream = None
