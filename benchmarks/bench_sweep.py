"""Sweep throughput (runs per minute) against workers: local processes, and a Ray cluster
started here on 127.0.0.1 with that many CPUs. Each measurement is a fresh `ttt sweep` of the
same runs into a new file (the figure excludes Ray's own start-up, included for local runs).

Run:  .venv/bin/python benchmarks/bench_sweep.py [--workers 1,2] [--runs 48]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import reference_course  # this folder's: the reference speed

BIN = Path(sys.executable).parent


def sweep(out: Path, runs: int, extra: list[str]) -> dict[str, float]:
    result = subprocess.run(
        [
            str(BIN / "ttt"),
            "sweep",
            "q",
            "--board",
            "3x4",
            "--episodes",
            "300000",
            "--seeds",
            f"0-{runs - 1}",
            "--out",
            str(out),
            "--json",
            *extra,
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    report = json.loads(result.stdout)
    return {
        "runs": report["ran"],
        "seconds": report["seconds"],
        "runs_per_minute": report["ran"] / report["seconds"] * 60,
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--runs", type=int, default=48)
    args = parser.parse_args()
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    print("backend | workers | runs | seconds | runs/minute")
    for workers in (int(w) for w in args.workers.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            r = sweep(Path(folder) / "local.csv", args.runs, ["--workers", str(workers)])
        print(f"local | {workers} | {r['runs']} | {r['seconds']:.1f} | {r['runs_per_minute']:.0f}")
        if shutil.which("ray", path=str(BIN)) is None:
            continue
        port, temp = free_port(), tempfile.mkdtemp(prefix="ray", dir="/tmp")
        subprocess.run(
            [
                str(BIN / "ray"),
                "start",
                "--head",
                "--node-ip-address",
                "127.0.0.1",
                "--port",
                str(port),
                "--num-cpus",
                str(workers),
                "--include-dashboard=false",
                "--disable-usage-stats",
                "--temp-dir",
                temp,
            ],
            check=True,
            capture_output=True,
            env=env,
        )
        try:
            with tempfile.TemporaryDirectory() as folder:
                r = sweep(Path(folder) / "ray.csv", args.runs, ["--address", f"127.0.0.1:{port}"])
            print(
                f"ray | {workers} | {r['runs']} | {r['seconds']:.1f} | {r['runs_per_minute']:.0f}"
            )
        finally:
            subprocess.run(
                [str(BIN / "ray"), "stop", "--force"], capture_output=True, env=env, check=False
            )
            shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    main()
