"""Time limits in reference units: ``ttt check``'s limits are work, not seconds.

The machine's speed varies more than any budget (the course's own TD agent ran at 4,120
episodes/s one week and 695 another): a limit in seconds means a different amount of work
each day, and a correct file that is slow but within the limit on one day is ``incomplete``
on a slower one. As programming-contest judges calibrate their limits to the judging
machine, ``ttt check`` measures the machine's **reference speed**: the course's own pure-Python
TD(0) program (:mod:`tttlab.usercode.reference`) for a fixed number of episodes, in the
process's CPU time (the limits count a file's own time, never its waits for a CPU:
:mod:`tttlab.usercode.boxside.clock`), kept for :data:`KEPT` seconds in the user's cache.

The documented limits (120 s a file, 5 s a call) hold at :data:`REFERENCE` episodes/s. On a
machine measured slower, the seconds grow in proportion, at most :data:`CAP` times; on a
faster one they never shrink. The memory, output and process limits do not change, and the
cap bounds what a hostile file can gain. ``TTTLAB_REFERENCE_SPEED`` gives the speed from
outside (for tests); the report says which limits applied and why (:class:`Limits`).
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from tttlab.atomic import write_atomically

__all__ = ["CAP", "ENV", "KEPT", "REFERENCE", "Limits", "limits", "measure", "reference_speed"]

#: The reference speed at which the documented limits hold (episodes/s, a quiet 2-core
#: machine of the project's).
REFERENCE = 1_100.0
#: The most the seconds grow on a slow machine.
CAP = 4.0
#: How long a measured speed is kept (seconds).
KEPT = 3_600.0
#: The variable that gives the speed from outside (episodes/s).
ENV = "TTTLAB_REFERENCE_SPEED"
#: The episodes one measurement plays, their set-up included, as ``make test`` and the
#: benchmarks measure the reference speed (2.7 s at the reference speed, CPU time).
EPISODES = 3_000

_measured: list[tuple[float, float]] = []  # (episodes/s, when), this process's


def measure(episodes: int = EPISODES, samples: int = 2) -> float:
    """The reference speed now: episodes/s of the course's TD(0) self-play for ``episodes``
    episodes, their two tables of initial values included, in this process's CPU time, as
    ``benchmarks/reference_course.py`` times it whole. Here it is put together from parts
    (a table, and a tenth of the episodes), each the quickest of ``samples`` tries:
    steadier than one whole run, in about as long."""
    from tttlab.usercode import reference

    part = max(1, episodes // 10)
    env = reference.Environment()
    o = reference.initial_values(env.o)  # O's table costs what X's does: timed once, as X's
    table, games = math.inf, math.inf
    for _ in range(samples):
        started = time.process_time()
        x = reference.initial_values(env.x)
        table = min(table, time.process_time() - started)
        rng = np.random.default_rng(0)
        p1, p2 = reference.Agent(x, env.x, rng), reference.Agent(o.copy(), env.o, rng)
        started = time.process_time()
        for _ in range(part):
            reference.play_game(p1, p2, reference.Environment())
        games = min(games, time.process_time() - started)
    return episodes / max(2 * table + games * episodes / part, 1e-6)


def _cache() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "tttlab" / "reference-speed.json"


def _given() -> float | None:
    text = os.environ.get(ENV)
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def reference_speed(now: float | None = None) -> tuple[float, str]:
    """The machine's reference speed and where it came from ("given", "measured" or
    "kept"): ``TTTLAB_REFERENCE_SPEED``, else one measured in the last :data:`KEPT` s (by
    this process or, from the cache, another), else measured now and kept."""
    given = _given()
    if given is not None:
        return given, "given"
    now = time.time() if now is None else now
    if _measured and now - _measured[-1][1] < KEPT:
        return _measured[-1][0], "kept"
    try:
        kept = json.loads(_cache().read_text())
        value, when = float(kept["episodes_per_s"]), float(kept["measured_at"])
        if math.isfinite(value) and value > 0 and 0 <= now - when < KEPT:
            _measured.append((value, when))
            return value, "kept"
    except (OSError, ValueError, KeyError, TypeError):
        pass
    value = measure()
    _measured.append((value, now))
    try:
        _cache().parent.mkdir(parents=True, exist_ok=True)
        data = {"episodes_per_s": round(value, 1), "measured_at": now}
        text = json.dumps(data).encode()

        def write(f: BinaryIO) -> None:
            f.write(text)

        write_atomically(_cache(), write)
    except OSError:  # a cache that cannot be written: measured again next time
        pass
    return value, "measured"


@dataclass(frozen=True)
class Limits:
    """The limits that applied: the seconds for a file and for a call, the factor they
    were grown by, the speed measured, and why, in words."""

    time_limit: float
    call_seconds: float
    factor: float
    speed: float
    source: str

    def note(self) -> str:
        """The report's line on the limits that applied."""
        at = f"reference speed {self.speed:,.0f} episodes/s ({self.source})"
        if self.factor == 1.0:
            return (
                f"time limits {self.time_limit:g} s a file, {self.call_seconds:g} s a call: "
                f"{at}, at or above the {REFERENCE:,.0f} they are set for"
            )
        capped = " (the cap)" if self.factor == CAP else ""
        return (
            f"time limits grown {self.factor:.2f}×{capped} to {self.time_limit:.0f} s a file, "
            f"{self.call_seconds:.1f} s a call: {at}, slower than the {REFERENCE:,.0f} "
            "they are set for"
        )

    def as_json(self) -> dict[str, float | str]:
        return {
            "time_limit": round(self.time_limit, 3),
            "call_seconds": round(self.call_seconds, 3),
            "factor": round(self.factor, 4),
            "reference_speed": round(self.speed, 1),
            "reference_speed_source": self.source,
            "reference": REFERENCE,
        }


def limits(time_limit: float, call_seconds: float, speed: float | None = None) -> Limits:
    """``time_limit`` and ``call_seconds`` (set for :data:`REFERENCE`) on this machine:
    grown by how much slower it is, at most :data:`CAP` times, never shrunk."""
    source = "given"
    if speed is None:
        speed, source = reference_speed()
    factor = min(CAP, max(1.0, REFERENCE / speed))
    return Limits(time_limit * factor, call_seconds * factor, factor, speed, source)
