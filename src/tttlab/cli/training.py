"""What every ``ttt train`` loop shares: stopping on a signal, the progress bar, and the
short form of a curve point shown beside it."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from tttlab.cli.common import err, out

__all__ = ["StopOnSignal", "print_summary", "progress_bar", "short"]


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
