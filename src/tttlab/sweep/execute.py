"""Where the runs of a sweep execute: local worker processes (the default), or the workers
of an existing Ray cluster. Either way rows come back as each run finishes.

The default is a local process pool from the standard library, whether or not Ray is
installed: it needs nothing beyond the base install, starts in a second, and behaves the
same on every machine. Starting Ray's local mode instead would cost several seconds and
hundreds of MB per sweep and make the default depend on which extras happen to be present.
Ray is used only when a cluster is named (``--address`` or ``RAY_ADDRESS``).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import time
from collections.abc import Callable
from typing import Any

from tttlab import __version__
from tttlab.sweep.plan import Run, SweepError, run_one

__all__ = ["ClusterLost", "RayCluster", "run_local"]

RowCallback = Callable[[dict[str, Any]], None]


class ClusterLost(SweepError):
    """The Ray cluster went away during the sweep."""


def _quiet_worker() -> None:
    # Ctrl-C goes to the whole process group; the parent stops the sweep, workers just end.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_local(runs: list[Run], on_row: RowCallback, workers: int | None = None) -> None:
    """Run on this machine, ``workers`` processes at a time (default: every core)."""
    count = max(1, min(workers or os.cpu_count() or 1, len(runs) or 1))
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads
    pool = cf.ProcessPoolExecutor(count, mp_context=context, initializer=_quiet_worker)
    try:
        futures = [pool.submit(run_one, run.as_dict()) for run in runs]
        for future in cf.as_completed(futures):
            on_row(future.result())
    except BaseException:
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:  # runs in progress are dropped, never half written
            process.terminate()
        raise
    pool.shutdown(wait=True)


def _split(address: str) -> tuple[str, int]:
    host, sep, port = address.strip().removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise SweepError(f"--address must look like HOST:PORT, got {address!r}")
    return host, int(port)


def _reachable(host: str, port: int, timeout: float) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _cluster_version() -> str:
    """Runs on a worker of the cluster: the tttlab version it would train with."""
    from tttlab import __version__

    return __version__


class RayCluster:
    """A connection to the Ray cluster at ``address`` (its GCS, ``HOST:PORT``), checked at
    once: a malformed or unreachable address, Ray missing, or a cluster whose workers run
    another tttlab version than ``version`` (their rows would not be this version's) raises
    :class:`SweepError`. Use it as a context manager, or call :meth:`close`."""

    def __init__(self, address: str, version: str = __version__) -> None:
        self.host, self.port = _split(address)
        try:
            import ray
        except ImportError:
            raise SweepError("--address needs Ray: pip install 'tttlab[distributed]'") from None
        self._ray = ray
        if not _reachable(self.host, self.port, timeout=5.0):
            raise SweepError(f"cannot reach a Ray cluster at {self.host}:{self.port}")
        extra: dict[str, Any] = {}
        if self.host in ("127.0.0.1", "localhost", "::1"):  # on this machine: stay on loopback
            extra["_node_ip_address"] = "127.0.0.1"
        try:
            ray.init(
                address=f"{self.host}:{self.port}",
                logging_level=logging.ERROR,
                log_to_driver=False,
                **extra,
            )
        except Exception as error:  # ConnectionError, RuntimeError, ray's own
            raise SweepError(
                f"cannot join the Ray cluster at {self.host}:{self.port}: {error}"
            ) from None
        try:
            theirs = ray.get(ray.remote(num_cpus=0)(_cluster_version).remote(), timeout=120)
        except Exception as error:
            self.close()
            raise SweepError(
                f"the Ray cluster at {self.host}:{self.port} cannot run tttlab ({error})"
            ) from None
        if theirs != version:
            self.close()
            raise SweepError(
                f"the Ray cluster at {self.host}:{self.port} runs tttlab {theirs}, this is "
                f"{version}: install the same version on the cluster"
            )

    def __enter__(self) -> RayCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _lost(self, unfinished: int) -> ClusterLost:
        return ClusterLost(
            f"lost the Ray cluster at {self.host}:{self.port} with {unfinished} runs "
            "unfinished; finished rows are saved, run the same command to finish"
        )

    def run(
        self, runs: list[Run], on_row: RowCallback, retries: int = 3, lost_after: float = 15.0
    ) -> None:
        """Each run is one task with ``retries`` retries, so a worker that dies mid-run
        costs that run a restart, never a duplicate row: a row is written once, when its
        task's result is fetched. When the cluster stops answering for ``lost_after``
        seconds, raises :class:`ClusterLost`; the rows written so far stay, and running
        the sweep again finishes only the missing ones."""
        ray = self._ray
        remote = ray.remote(num_cpus=1, max_retries=retries, retry_exceptions=False)(run_one)
        pending = {remote.remote(run.as_dict()): run for run in runs}
        try:
            self._collect(pending, on_row, lost_after)
        finally:  # on any way out (a lost cluster, Ctrl-C), no task is left running
            for ref in pending:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)

    def _collect(self, pending: dict[Any, Run], on_row: RowCallback, lost_after: float) -> None:
        ray = self._ray
        silent_since: float | None = None
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
            if not done:
                if _reachable(self.host, self.port, timeout=2.0):
                    silent_since = None
                elif silent_since is None:
                    silent_since = time.monotonic()
                elif time.monotonic() - silent_since > lost_after:
                    raise self._lost(len(pending))
                continue
            for ref in done:
                pending.pop(ref)
                try:
                    row = ray.get(ref)
                except Exception as error:
                    if not _reachable(self.host, self.port, timeout=2.0):
                        raise self._lost(len(pending) + 1) from None
                    raise SweepError(f"a run failed on the cluster: {error}") from None
                on_row(row)

    def close(self) -> None:
        if self._ray.is_initialized():
            self._ray.shutdown()
