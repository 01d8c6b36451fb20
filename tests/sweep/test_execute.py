"""``ttt sweep --address`` against a real Ray cluster started here, on loopback only:
the same rows as a local run, a worker killed mid-sweep, a cluster of another version
refused, runs cancelled when the sweep stops, and the cluster stopped mid-sweep. One
cluster serves the module (its last test stops it).

Marked ``ray``: ``make test`` runs them alone, after the parallel run. ``ray start`` waits 30 s
at most for its node to register (a constant in ray/_private/node.py), and it and the Python
processes it starts take about 16 s of CPU from cold: on 2 cores beside ``pytest -n 2`` they
missed it."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import pids_where, start_ttt, ttt
from tests.cli.test_sweep_cmd import keyed, rows
from tttlab.game import Geometry
from tttlab.sweep import RayCluster, SweepError, plan_runs

# Ray itself is imported by the tests that ask it (importing it costs each process that
# collects this module 1.5 s, and make test's parallel phase collects it only to leave it out).
if importlib.util.find_spec("ray") is None:
    pytest.skip("the distributed extra (Ray) is not installed", allow_module_level=True)
RAY = str(Path(sys.executable).with_name("ray"))
pytestmark = [pytest.mark.slow, pytest.mark.ray, pytest.mark.xdist_group(name="ray")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """``ray start --head`` on 127.0.0.1 with 2 CPUs, in a short temp folder of its own, and
    in a session of its own: every process of the cluster (workers too) is in that session,
    so stopping it ends this cluster only, never another one on the machine (``ray stop``
    would stop them all)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # socket paths must be short
        self.env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
        # every port a node takes, free ones: another cluster on the machine (a run that
        # was stopped and left one) holds Ray's defaults, and this one would not start
        ports = [
            f"--{name}={free_port()}"
            for name in (
                "dashboard-agent-listen-port",
                "dashboard-agent-grpc-port",
                "runtime-env-agent-port",
                "metrics-export-port",
                "node-manager-port",
                "object-manager-port",
            )
        ]
        command = [RAY, "start", "--head", "--node-ip-address", "127.0.0.1"]
        command += ["--port", str(self.port), "--num-cpus", "2", "--include-dashboard=false"]
        command += ["--disable-usage-stats", "--temp-dir", self.temp, *ports]
        started = subprocess.run(
            command,
            check=False,
            capture_output=True,
            text=True,
            env=self.env,
            timeout=120,
            start_new_session=True,
        )
        self.session = next(
            (_session(pid) for pid in _pids() if self.temp.encode() in _cmdline(pid)), -1
        )
        if started.returncode != 0 or self.session <= 0:
            self.stop()  # what it started of the cluster, not left running
            pytest.fail(start_failure(started.returncode, started.stderr), pytrace=False)
        self.address = f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.session <= 0:
            shutil.rmtree(self.temp, ignore_errors=True)
            return
        for _ in range(3):  # processes may still be starting workers: sweep a few times
            for pid in _pids():
                if _session(pid) == self.session:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
            time.sleep(0.2)
        shutil.rmtree(self.temp, ignore_errors=True)


#: What ``ray start`` says when its raylet did not register in the 30 s Ray waits for it.
RAY_START_WAIT = "The current node timed out during startup"


def start_failure(code: int, stderr: str) -> str:
    """Why the cluster did not start, in words: a test fails with it (never a skip)."""
    if code == 0:
        return "`ray start --head` on 127.0.0.1 said it started, but no process of it runs"
    said = f"`ray start --head` on 127.0.0.1 failed (exit {code}):\n{stderr[-2000:]}"
    if RAY_START_WAIT not in stderr:
        return said
    return (
        f"{said}\nRay's node did not register within the 30 s that ray start waits for it (a "
        "constant in ray/_private/node.py): ray start and its Python processes (about 16 s of "
        "CPU from cold) did not get enough of the CPUs. Run these tests with nothing beside "
        "them, as make test does: .venv/bin/pytest -m ray tests/sweep"
    )


def _pids() -> list[int]:
    return pids_where(lambda entry: True)


def _cmdline(pid: int) -> bytes:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return b""


def _session(pid: int) -> int:
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return -1
    return int(stat.rsplit(")", 1)[1].split()[3])  # state, ppid, pgrp, session, ...


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    started = Cluster()
    try:
        yield started
    finally:
        started.stop()


def sweep(out: Path, seeds: str, *extra: str, episodes: int = 400_000) -> list[str]:
    return [
        "sweep",
        "q",
        "td",
        "--board",
        "3x4",
        "--episodes",
        str(episodes),
        "--seeds",
        seeds,
        "--out",
        str(out),
        *extra,
    ]


def start(args: list[str]) -> subprocess.Popen[str]:
    proc: subprocess.Popen[str] = start_ttt(
        *args, env={"COLUMNS": "100", "RAY_USAGE_STATS_ENABLED": "0"}
    )
    return proc


def wait_for_rows(out: Path, count: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and len(rows(out)) >= count:
            return
        time.sleep(0.1)
    raise AssertionError(f"no {count} rows in time: {proc.poll()}")


def worker_pids() -> list[int]:
    """Ray worker processes running a sweep task (Ray titles them ``ray::run_one``)."""
    return [pid for pid in _pids() if _cmdline(pid).startswith(b"ray::run_one")]


def test_a_head_that_does_not_register_in_time_fails_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never a skip: a Ray that cannot start here is a failure, which says what to do."""
    slow = tmp_path / "ray"
    slow.write_text(f"#!/bin/sh\necho 'Exception: {RAY_START_WAIT}.' >&2\nexit 1\n")
    slow.chmod(0o755)
    monkeypatch.setattr(sys.modules[__name__], "RAY", str(slow))
    with pytest.raises(pytest.fail.Exception) as failed:
        Cluster()
    assert "failed (exit 1)" in str(failed.value)
    assert "did not register within the 30 s" in str(failed.value)
    assert "pytest -m ray tests/sweep" in str(failed.value)


def test_cluster_rows_equal_local_rows_and_survive_a_killed_worker(
    cluster: Cluster, tmp_path: Path
) -> None:
    local, remote = tmp_path / "local.csv", tmp_path / "remote.csv"
    # 4 runs: once 2 rows are in, the other 2 are running on the cluster's 2 CPUs.
    result = ttt(*sweep(local, "0-1", "--workers", "2"))
    assert result.returncode == 0, result.stderr

    proc = start(sweep(remote, "0-1", "--address", cluster.address))
    try:
        wait_for_rows(remote, 2, proc)
        killed = 0
        deadline = time.monotonic() + 60
        while not killed and time.monotonic() < deadline and proc.poll() is None:
            for pid in worker_pids():
                os.kill(pid, signal.SIGKILL)  # a worker dies in the middle of a run
                killed += 1
                break
            time.sleep(0.05)
        _, err = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert killed == 1, "no running Ray worker was found to kill"
    assert proc.returncode == 0, err
    assert keyed(remote) == keyed(local)  # every row exactly once, the same figures


def test_another_version_is_refused_and_a_stopped_sweep_cancels_its_runs(
    cluster: Cluster,
) -> None:
    import ray

    with pytest.raises(SweepError, match=r"runs tttlab .*, this is 0\.0\.0-elsewhere"):
        RayCluster(cluster.address, version="0.0.0-elsewhere")
    assert not ray.is_initialized()  # the refused connection is closed
    runs = plan_runs(["q"], Geometry(3, 4, 3), [2_000_000], list(range(6)), {})

    def stop(row: dict[str, object]) -> None:
        raise KeyboardInterrupt  # Ctrl-C once the first row is in

    with RayCluster(cluster.address) as connected:
        with pytest.raises(KeyboardInterrupt):
            connected.run(runs, stop)
        # A run takes seconds, and 4 of the 6 have not started: left alone, runs would go on
        # well past this deadline; cancelled, they end at once.
        deadline = time.monotonic() + 5
        while worker_pids() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not worker_pids(), "runs went on on the cluster after the sweep stopped"
    assert not ray.is_initialized()


def test_cluster_stopped_mid_sweep_then_finished_locally(cluster: Cluster, tmp_path: Path) -> None:
    out = tmp_path / "stopped.csv"
    remote = ["--address", cluster.address, "--lost-after", "3"]  # 3 s without an answer
    args = sweep(out, "0-1", *remote, episodes=600_000)
    proc = start(args)
    try:
        wait_for_rows(out, 2, proc)
        cluster.stop()
        _, err = proc.communicate(timeout=240)
    finally:
        proc.kill()
    assert proc.returncode not in (0, None)
    errors = [line for line in err.splitlines() if line.startswith("ttt:")]
    assert len(errors) == 1, err
    assert "lost the Ray cluster" in errors[0]
    assert "Traceback" not in err
    kept = keyed(out)
    assert 2 <= len(kept) < 4  # the runs that had started on the cluster are not

    local = sweep(out, "0-1", episodes=600_000)
    again = ttt(*local, "--json", timeout=600)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["ran"] == 4 - len(kept)
    final = keyed(out)
    assert len(final) == 4
    assert all(final[key] == value for key, value in kept.items())
