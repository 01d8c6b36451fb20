"""One training driver for every learner (tables and networks) and every caller: runs
started from options or resumed from checkpoints (:mod:`~tttlab.training.runs`), the loop
(:mod:`~tttlab.training.driver`), and what watches it (:mod:`~tttlab.training.watchers`)."""

from tttlab.training.driver import Outputs, Result, drive
from tttlab.training.runs import NetworkRun, Run, TableRun, check_config, resume, start
from tttlab.training.signals import StopOnSignal
from tttlab.training.watchers import Callback, ConsoleProgress, EventLog, Tick, Watcher

__all__ = [
    "Callback",
    "ConsoleProgress",
    "EventLog",
    "NetworkRun",
    "Outputs",
    "Result",
    "Run",
    "StopOnSignal",
    "TableRun",
    "Tick",
    "Watcher",
    "check_config",
    "drive",
    "resume",
    "start",
]
