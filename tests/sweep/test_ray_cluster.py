"""``ttt sweep --address`` against a real Ray cluster started here, on loopback only:
the same rows as a local run, a worker killed mid-sweep, and the cluster stopped mid-sweep."""

from __future__ import annotations

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

from tests.cli.helpers import ttt
from tests.sweep.test_sweep import keyed, rows

ray = pytest.importorskip("ray", reason="the distributed extra (Ray) is not installed")
RAY = str(Path(sys.executable).with_name("ray"))
pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """``ray start --head`` on 127.0.0.1 with 2 CPUs, in a short temp folder of its own."""

    def __init__(self) -> None:
        self.port = free_port()
        self.temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # socket paths must be short
        self.env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
        subprocess.run(
            [
                RAY,
                "start",
                "--head",
                "--node-ip-address",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--num-cpus",
                "2",
                "--include-dashboard=false",
                "--disable-usage-stats",
                "--temp-dir",
                self.temp,
            ],
            check=True,
            capture_output=True,
            env=self.env,
            timeout=120,
        )
        self.address = f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        subprocess.run(
            [RAY, "stop", "--force"], capture_output=True, env=self.env, timeout=120, check=False
        )
        shutil.rmtree(self.temp, ignore_errors=True)


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    started = Cluster()
    try:
        yield started
    finally:
        started.stop()


def sweep(out: Path, seeds: str, *extra: str) -> list[str]:
    return [
        "sweep",
        "q",
        "td",
        "--board",
        "3x4",
        "--episodes",
        "300000",
        "--seeds",
        seeds,
        "--out",
        str(out),
        *extra,
    ]


def start(args: list[str]) -> subprocess.Popen[str]:
    env = dict(os.environ, COLUMNS="100", RAY_USAGE_STATS_ENABLED="0")
    return subprocess.Popen(
        [sys.executable, "-m", "tttlab", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def wait_for_rows(out: Path, count: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and len(rows(out)) >= count:
            return
        time.sleep(0.1)
    raise AssertionError(f"no {count} rows in time: {proc.poll()}")


def worker_pids() -> list[int]:
    """Ray worker processes running a sweep task (Ray titles them ``ray::run_one``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if cmdline.startswith(b"ray::run_one"):
                found.append(int(entry.name))
    return found


def test_cluster_rows_equal_local_rows_and_survive_a_killed_worker(
    cluster: Cluster, tmp_path: Path
) -> None:
    local, remote = tmp_path / "local.csv", tmp_path / "remote.csv"
    result = ttt(*sweep(local, "0-9", "--workers", "2"))
    assert result.returncode == 0, result.stderr

    proc = start(sweep(remote, "0-9", "--address", cluster.address))
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


def test_cluster_stopped_mid_sweep_then_finished_locally(cluster: Cluster, tmp_path: Path) -> None:
    out = tmp_path / "stopped.csv"
    args = sweep(out, "0-29", "--address", cluster.address)
    proc = start(args)
    try:
        wait_for_rows(out, 3, proc)
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
    assert 3 <= len(kept) < 60

    local = [a for a in args if a not in ("--address", cluster.address)]
    again = ttt(*local, "--json", timeout=600)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["ran"] == 60 - len(kept)
    final = keyed(out)
    assert len(final) == 60
    assert all(final[key] == value for key, value in kept.items())
