"""Ctrl-C during ``ttt train`` stops cleanly and keeps what was learned."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tttlab.io import load_agent_file


def test_sigint_saves_the_agent_so_far(tmp_path: Path) -> None:
    out = tmp_path / "long.npz"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tttlab",
            "train",
            "q",
            "--episodes",
            "2000000000",
            "--seed",
            "0",
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, NO_COLOR="1"),
    )
    try:
        time.sleep(4)  # past start-up and into training
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert "Interrupted after" in stderr
    assert "Traceback" not in stderr
    agent = load_agent_file(out)
    assert 0 < agent.meta["episodes"] < 2_000_000_000
