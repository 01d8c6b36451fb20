"""A real ``ttt serve`` on a free loopback port, for the browser and load tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def agents_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("agents")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "tttlab",
            "train",
            "q",
            "--episodes",
            "100000",
            "--seed",
            "0",
            "--out",
            str(folder / "q.npz"),
        ],
        check=True,
        capture_output=True,
    )
    return folder


@pytest.fixture(scope="module")
def server(agents_dir: Path) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tttlab", "serve", "--port", str(port), "--agents", str(agents_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/api/agents", timeout=2):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"ttt serve did not start: {proc.stderr.read()!r}") from None
            time.sleep(0.2)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
