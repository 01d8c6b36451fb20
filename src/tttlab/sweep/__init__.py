"""Sweeps: many training runs (algorithms × episode counts × seeds × hyperparameters), each
judged exactly, run on local cores or a Ray cluster, into one resumable CSV file."""

from tttlab.sweep.execute import ClusterLost, RayCluster, run_local
from tttlab.sweep.plan import (
    Run,
    SweepError,
    parse_episodes,
    parse_seeds,
    parse_sets,
    plan_runs,
    run_one,
)
from tttlab.sweep.report import plot_summary, summarise, wilson
from tttlab.sweep.store import COLUMNS, ResultsFile

__all__ = [
    "COLUMNS",
    "ClusterLost",
    "RayCluster",
    "ResultsFile",
    "Run",
    "SweepError",
    "parse_episodes",
    "parse_seeds",
    "parse_sets",
    "plan_runs",
    "plot_summary",
    "run_local",
    "run_one",
    "summarise",
    "wilson",
]
