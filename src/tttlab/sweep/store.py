"""The results file of a sweep: CSV, one row per finished run, appended as runs finish.

Each row is written with one ``write`` of a whole line, flushed and synced, so an interrupted
sweep keeps every finished row. A line cut short by a crash (no newline at the end) is
dropped when the file is opened again, so a half row never counts. A file whose header is
not this sweep's columns is refused rather than appended to.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

from tttlab.atomic import write_atomically
from tttlab.sweep.plan import Run, SweepError

__all__ = ["COLUMNS", "ResultsFile"]

COLUMNS = (
    "algorithm",
    "board",
    "episodes",
    "seed",
    "hyperparameters",
    "seconds",
    "x_worst_case",
    "x_optimal_share",
    "x_score_vs_random",
    "x_win",
    "x_draw",
    "x_loss",
    "o_worst_case",
    "o_optimal_share",
    "o_score_vs_random",
    "o_win",
    "o_draw",
    "o_loss",
    "unbeatable",
    "perfect",
)
_INTS = ("episodes", "seed", "x_worst_case", "o_worst_case")
_BOOLS = ("unbeatable", "perfect")


def _typed(raw: dict[str, str]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for key in COLUMNS:
        value = raw[key]
        if key in _INTS:
            row[key] = int(value)
        elif key in _BOOLS:
            if value not in ("true", "false"):
                raise ValueError(f"{key} must be true or false")
            row[key] = value == "true"
        elif key in ("algorithm", "board", "hyperparameters"):
            row[key] = value
        else:
            row[key] = float(value)
    return row


def _key(row: dict[str, Any]) -> tuple[str, str, int, int, str]:
    return Run(
        row["algorithm"], row["board"], row["episodes"], row["seed"], row["hyperparameters"]
    ).key


def _line(row: dict[str, Any]) -> str:
    buffer = io.StringIO()
    values = [("true" if row[c] else "false") if c in _BOOLS else row[c] for c in COLUMNS]
    csv.writer(buffer, lineterminator="\n").writerow(values)
    return buffer.getvalue()


def _put(handle: BinaryIO, text: str) -> None:
    handle.write(text.encode("utf-8"))


class ResultsFile:
    """Rows already in the file (by run key), and appending new ones."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[tuple[str, str, int, int, str], dict[str, Any]] = {}
        if path.exists() and path.stat().st_size > 0:
            self._read()
        else:
            self._write_atomically("".join([",".join(COLUMNS) + "\n"]))

    def _read(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise SweepError(f"cannot read {self.path}: {error}") from None
        lines = text.splitlines(keepends=True)
        header = lines[0].rstrip("\r\n").split(",") if lines else []
        if tuple(header) != COLUMNS:
            raise SweepError(
                f"{self.path} has other columns than a sweep writes; choose another --out "
                "(it is not appended to)"
            )
        complete = [line for line in lines[1:] if line.endswith("\n")]
        if len(complete) != len(lines) - 1:  # a row cut short by a crash: drop it
            self._write_atomically(lines[0] + "".join(complete))
        for number, raw in enumerate(csv.DictReader(io.StringIO("".join(complete)), COLUMNS), 2):
            try:
                row = _typed(raw)
            except (KeyError, TypeError, ValueError):
                raise SweepError(f"{self.path}: line {number} is not a sweep row") from None
            self.rows[_key(row)] = row

    def _write_atomically(self, text: str) -> None:
        try:
            write_atomically(self.path, lambda handle: _put(handle, text))
        except OSError as error:
            raise SweepError(f"cannot write {self.path}: {error.strerror or error}") from None

    def pending(self, runs: Iterable[Run]) -> list[Run]:
        """The runs that have no row yet."""
        return [run for run in runs if run.key not in self.rows]

    def append(self, row: dict[str, Any]) -> None:
        """Add one finished run: one write of one whole line, then fsync."""
        line = _line(row)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
        self.rows[_key(row)] = {column: row[column] for column in COLUMNS}
