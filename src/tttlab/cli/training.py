"""What every ``ttt train`` loop shares: stopping on a signal, the progress bar, and the
short form of a curve point shown beside it."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import IO, Any

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from tttlab.cli.common import err, out

__all__ = ["EventLog", "StopOnSignal", "print_summary", "progress_bar", "short"]


class StopOnSignal:
    """Turn the first Ctrl-C (SIGINT) or SIGTERM into a request to stop between batches.

    A signal that arrives while numba compiles, or inside a batch, must not tear either
    apart: the loop finishes the batch, then saves. The first signal restores the previous
    handlers, so a second Ctrl-C interrupts at once.
    """

    def __init__(self) -> None:
        self.requested = False
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: object) -> None:
        self.requested = True
        self._restore()

    def _restore(self) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def __enter__(self) -> StopOnSignal:
        for signum in (signal.SIGINT, signal.SIGTERM):
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        self._restore()


def short(record: dict[str, Any]) -> str:
    parts = [
        f"{seat}: optimal {record[seat]['optimal_share']:.3f}"
        for seat in ("X", "O")
        if seat in record
    ]
    return "| " + ", ".join(parts)


def progress_bar() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[info]}"),
        console=err,
        transient=False,
    )


def print_summary(summary: dict[str, Any], *, trained: int, unit: str, curve: Path | None) -> None:
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
    if curve is not None:
        out.print(f"Learning curve: {curve}")


class EventLog:
    """``--events FILE`` (``-`` for standard output): JSON lines as training goes, for other
    programs (the web lab reads them). One ``progress`` line after each batch, with the exact
    metrics of a curve point when one was computed, then one ``done`` line once the agent
    file is saved. Each line is flushed at once."""

    def __init__(self, target: Path | None) -> None:
        self._stream: IO[str] | None = None
        self._own = False
        if target is not None and str(target) == "-":
            self._stream = sys.stdout
        elif target is not None:
            self._stream = target.open("w", encoding="utf-8")
            self._own = True

    @property
    def wanted(self) -> bool:
        return self._stream is not None

    @property
    def on_stdout(self) -> bool:
        """Then the done line replaces the human summary on standard output."""
        return self._stream is sys.stdout

    def _write(self, event: dict[str, Any]) -> None:
        if self._stream is not None:
            self._stream.write(json.dumps(event) + "\n")
            self._stream.flush()

    def progress(
        self, episode: int, episodes: int, rate: float, record: dict[str, Any] | None
    ) -> None:
        event: dict[str, Any] = {
            "event": "progress",
            "episode": episode,
            "episodes": episodes,
            "episodes_per_second": round(rate, 1),
        }
        if record is not None:
            event["metrics"] = {k: v for k, v in record.items() if k != "episode"}
        self._write(event)

    def done(
        self,
        out_path: Path,
        episodes: int,
        interrupted: bool,
        evaluation: dict[str, Any] | None,
    ) -> None:
        event: dict[str, Any] = {
            "event": "done",
            "agent": str(out_path),
            "episodes": episodes,
            "interrupted": interrupted,
        }
        if evaluation is not None:
            event["evaluation"] = evaluation
        self._write(event)

    def close(self) -> None:
        if self._own and self._stream is not None:
            self._stream.close()
