"""Schedules of ε and α: a value that stays, or goes linearly or exponentially from a start
at the first episode to an end at the last; and how ``--NAME``, ``--NAME-end`` and
``--NAME-schedule`` make one. The defaults are declared with the other hyperparameters
(:mod:`tttlab.hyperparameters`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from tttlab.errors import ConfigError

__all__ = ["SCHEDULE_KINDS", "Schedule", "schedule_from_options", "scheduled"]

#: The kinds of schedule ε and α may follow.
SCHEDULE_KINDS = ("constant", "linear", "exponential")
ScheduleKind = Literal["constant", "linear", "exponential"]


@dataclass(frozen=True)
class Schedule:
    """A value that may change over training: constant, or linear / exponential from
    ``start`` at the first episode to ``end`` at the last.

    >>> round(Schedule("linear", 0.5, 0.1).at(50, 101), 6)
    0.3
    """

    kind: ScheduleKind = "constant"
    start: float = 0.1
    end: float | None = None

    def validate(self, label: str) -> None:
        if self.kind not in SCHEDULE_KINDS:
            raise ConfigError(f"{label} schedule must be constant, linear or exponential")
        for which, v in (("start", self.start), ("end", self.end)):
            if v is not None and not (math.isfinite(v) and 0.0 <= v <= 1.0):
                raise ConfigError(f"{label} {which} must be within [0, 1], got {v}")
        if self.kind != "constant" and self.end is None:
            raise ConfigError(
                f"the {self.kind} {label} schedule needs an end value (--{label}-end)"
            )
        if self.kind == "exponential" and (self.start <= 0 or (self.end or 0) <= 0):
            raise ConfigError(f"the exponential {label} schedule needs start and end above 0")

    def row(self) -> list[float]:
        """``[kind code, start, end]``, as the compiled kernels read a schedule."""
        end = self.start if self.end is None else self.end
        return [float(SCHEDULE_KINDS.index(self.kind)), float(self.start), float(end)]

    def at(self, t: int, total: int) -> float:
        """The value at episode ``t`` of ``total``."""
        kind, start, end = self.row()
        return scheduled(int(kind), start, end, t, total)


def scheduled(kind: int, start: float, end: float, t: int, total: int) -> float:
    """A schedule's value at episode ``t`` of ``total`` (kind 0 constant, 1 linear, 2
    exponential). Plain Python that numba compiles as it is for the table learners' kernels
    (:data:`tttlab.learners.kernels.scheduled`): one formula for both."""
    if kind == 0 or total <= 1:
        return start
    frac = min(t / (total - 1), 1.0)
    if kind == 1:
        return start + (end - start) * frac
    return float(start * (end / start) ** frac)


def schedule_from_options(
    kind: str | None, start: float | None, end: float | None, default: Schedule
) -> Schedule | None:
    """The schedule that ``--NAME``, ``--NAME-end`` and ``--NAME-schedule`` ask for (None when
    none of them is given): a start value alone makes a constant schedule, an end value keeps
    the default's kind."""
    if kind is None and start is None and end is None:
        return None
    chosen_kind = kind or ("constant" if end is None else default.kind)
    chosen_start = start if start is not None else default.start
    chosen_end = end if end is not None else (default.end if chosen_kind != "constant" else None)
    return Schedule(chosen_kind, chosen_start, chosen_end)  # type: ignore[arg-type]
