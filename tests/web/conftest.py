"""A real ``ttt serve`` on a free loopback port, for the browser and load tests, and a JSON
call to it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import TTT, ttt


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def agents_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("agents")
    trained = ttt(
        "train", "q", "--episodes", "100000", "--seed", "0", "--out", str(folder / "q.npz")
    )
    assert trained.returncode == 0, trained.stderr
    return folder


def start_serve(folder: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    """``ttt serve --agents FOLDER`` on a free loopback port, once it answers."""
    port = free_port()
    proc = subprocess.Popen(
        [*TTT, "serve", "--port", str(port), "--agents", str(folder), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/api/agents", timeout=5):
                return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                assert proc.stderr is not None
                raise RuntimeError(f"ttt serve did not start: {proc.stderr.read()!r}") from None
            time.sleep(0.2)


def stop_serve(proc: subprocess.Popen[bytes]) -> None:
    """Stop it as Ctrl-C would (a clean shutdown), killing it if that hangs."""
    proc.terminate()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()


def call(url: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """``METHOD url+path`` with a JSON ``body``: the status and the JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture(scope="module")
def server(agents_dir: Path) -> Iterator[str]:
    proc, url = start_serve(agents_dir)
    yield url
    stop_serve(proc)


CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "browser"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    """Debian's headless Chromium, driven by Playwright (never a browser of its own)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            raise RuntimeError(f"{CHROMIUM} is missing: `make test` installs Debian's chromium")
        pytest.skip(f"{CHROMIUM} is not installed (make test installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield chromium
        chromium.close()
