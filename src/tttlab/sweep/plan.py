"""What a sweep runs: the cross product of algorithms, episode counts, seeds and ``--set``
values, and one run trained and judged exactly, as ``ttt train --json`` does."""

from __future__ import annotations

import itertools
import json
import re
import time
from dataclasses import asdict, astuple, dataclass
from typing import Any

from tttlab.errors import TttlabError
from tttlab.evaluation import evaluate_seats
from tttlab.game import (
    Geometry,
    StateSpaceTooLarge,
    check_enumerable,
    estimate_positions,
    state_space,
)
from tttlab.hyperparameters import BY_NAME, LEARNERS
from tttlab.limits import EXACT_JUDGE_POSITIONS
from tttlab.solvers import solve_table
from tttlab.training import check_config, drive, start

_SEEDS = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


class SweepError(TttlabError):
    """A sweep that cannot be run as asked."""


@dataclass(frozen=True, order=True)
class Run:
    """One training run of a sweep. ``hyperparameters`` is canonical JSON (sorted keys) of
    the ``--set`` values, so it can key a row of the results file."""

    algorithm: str
    board: str
    episodes: int
    seed: int
    hyperparameters: str

    @property
    def key(self) -> tuple[str, str, int, int, str]:
        return astuple(self)

    @property
    def options(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.hyperparameters)
        return loaded

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _count(text: str, label: str) -> int:
    cleaned = text.strip().replace("_", "")
    if not cleaned.isdigit():
        raise SweepError(f"{label} must be whole numbers, got {text.strip()!r}")
    return int(cleaned)


def parse_seeds(text: str) -> list[int]:
    """``0-19``, ``3`` or ``0,2,5-7`` → the seeds, in order, each once."""
    seeds: list[int] = []
    for part in text.split(","):
        match = _SEEDS.match(part)
        if match is None:
            raise SweepError(f"--seeds takes N, A-B or a comma list of them, got {part.strip()!r}")
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) is not None else first
        if last < first:
            raise SweepError(f"--seeds range {first}-{last} is empty (it must go upwards)")
        if last - first >= 100_000:
            raise SweepError(f"--seeds range {first}-{last} is too long (at most 100,000 seeds)")
        seeds.extend(range(first, last + 1))
    return list(dict.fromkeys(seeds))


def parse_episodes(text: str) -> list[int]:
    """``5000,10000,20000`` → episode counts (each at least 1)."""
    counts = [_count(part, "--episodes") for part in text.split(",")]
    if any(c < 1 for c in counts):
        raise SweepError("--episodes must be at least 1")
    if any(c > 10**10 for c in counts):
        raise SweepError("--episodes is limited to 10,000,000,000 per run")
    return list(dict.fromkeys(counts))


def _value(key: str, text: str) -> Any:
    try:
        return BY_NAME[key.replace("-", "_")].parse(text)
    except TttlabError as error:
        raise SweepError(f"--set {key}: {error}") from None


def parse_sets(items: tuple[str, ...] | list[str]) -> dict[str, list[Any]]:
    """``["alpha=0.1,0.5", "epsilon=0.1"]`` → ``{"alpha": [0.1, 0.5], "epsilon": [0.1]}``."""
    chosen: dict[str, list[Any]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        key = key.strip().replace("_", "-")
        if not sep or not key or not values.strip():
            raise SweepError(f"--set takes NAME=V1,V2,..., got {item!r}")
        if key.replace("-", "_") not in BY_NAME:
            names = ", ".join(h.option[2:] for h in BY_NAME.values())
            raise SweepError(f"--set {key}: unknown hyperparameter; choose from {names}")
        if key in chosen:
            raise SweepError(f"--set {key} is given twice; list its values once, with commas")
        chosen[key] = list(dict.fromkeys(_value(key, v.strip()) for v in values.split(",")))
    return chosen


def plan_runs(
    algorithms: list[str],
    geometry: Geometry,
    episodes: list[int],
    seeds: list[int],
    sets: dict[str, list[Any]],
) -> list[Run]:
    """Every run of the sweep, each configuration checked before anything runs."""
    if not algorithms:
        raise SweepError(f"name at least one algorithm ({', '.join(LEARNERS)})")
    for algorithm in algorithms:
        if algorithm not in LEARNERS:
            raise SweepError(f"unknown algorithm {algorithm!r}; choose from {', '.join(LEARNERS)}")
    try:
        check_enumerable(geometry)
    except StateSpaceTooLarge as error:
        raise SweepError(f"cannot judge runs on {geometry.name} exactly: {error}") from None
    if (
        estimate_positions(geometry) > EXACT_JUDGE_POSITIONS
        and state_space(geometry).size > EXACT_JUDGE_POSITIONS
    ):
        raise SweepError(
            f"{geometry.name} is too big to judge exactly in a sweep "
            f"(more than {EXACT_JUDGE_POSITIONS:,} positions)"
        )
    names = sorted(sets)
    combos = [
        dict(zip(names, values, strict=True))
        for values in itertools.product(*(sets[n] for n in names))
    ]
    runs: list[Run] = []
    for algorithm in dict.fromkeys(algorithms):
        for combo in combos:
            try:  # the same checks as ttt train, with the run's first count and seed
                check_config(algorithm, geometry, episodes[0], seeds[0], combo)
            except TttlabError as error:
                raise SweepError(f"{algorithm} with {_describe(combo)}: {error}") from None
            hyper = json.dumps(combo, sort_keys=True, separators=(",", ":"))
            for count in episodes:
                for seed in seeds:
                    runs.append(Run(algorithm, geometry.name, count, seed, hyper))
    return runs


def _describe(combo: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in combo.items()) or "the defaults"


def run_one(run: dict[str, Any]) -> dict[str, Any]:
    """Train one run and judge it exactly: what ``ttt train --json`` reports, as one flat
    row. Takes and returns plain dicts, so any process or Ray worker can run it."""
    spec = Run(**run)
    geometry = Geometry.parse(spec.board)
    started = time.perf_counter()
    trained = drive(
        start(spec.algorithm, geometry, spec.episodes, spec.seed, spec.options),
        signals=False,
        judge=False,
    )
    reports = evaluate_seats(trained.agent, geometry)
    row: dict[str, Any] = {**spec.as_dict(), "seconds": round(time.perf_counter() - started, 3)}
    for seat in ("X", "O"):
        report = reports[seat].as_json()
        prefix = seat.lower()
        row[f"{prefix}_worst_case"] = report["worst_case"]
        row[f"{prefix}_optimal_share"] = report["optimal_share"]
        row[f"{prefix}_score_vs_random"] = report["score_vs_random"]
        row[f"{prefix}_win"] = report["vs_random"]["win"]
        row[f"{prefix}_draw"] = report["vs_random"]["draw"]
        row[f"{prefix}_loss"] = report["vs_random"]["loss"]
    # Unbeatable: each seat's worst case is the game's value from that seat (0 on 3×3 and
    # 4×4 k=4, which are draws); perfect adds an optimal move at every reachable decision.
    value = solve_table(geometry).value_at(0)
    row["unbeatable"] = row["x_worst_case"] == value and row["o_worst_case"] == -value
    row["perfect"] = row["unbeatable"] and row["x_optimal_share"] == row["o_optimal_share"] == 1.0
    return row
