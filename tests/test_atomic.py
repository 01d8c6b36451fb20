"""Files written atomically (:mod:`tttlab.atomic`), as agent files are: a writer killed
mid-save leaves the previous file whole, and the next save removes the temporaries of
writers that are gone, never a live writer's or another file's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tttlab.game import Geometry
from tttlab.io import load_agent_file

WRITER = """
import sys
from tttlab.game import Geometry
from tttlab.io import save_agent
from tttlab.learners import Trainer, default_config
trainer = Trainer(default_config("q", 1, geometry=Geometry(3, 4, 3)))
agent = trainer.agent()
print("ready", flush=True)
i = 0
while True:
    i += 1
    save_agent(sys.argv[1], agent, episodes=i, seed=0, hyperparameters={})
"""


def test_sigkill_during_save_leaves_the_previous_file_intact(tmp_path: Path) -> None:
    path = tmp_path / "agent.npz"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        for _ in range(6):  # kill it at several moments, each mid-way through some save
            while not path.exists():
                time.sleep(0.01)
            time.sleep(0.37)
            before = load_agent_file(path).meta["episodes"]
            assert before >= 1
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        proc.kill()
    # Whatever was being written when it died, the file at the path is a whole one.
    agent = load_agent_file(path)
    assert agent.meta["episodes"] >= 1
    assert agent.geometry == Geometry(3, 4, 3)


def test_sigkill_during_save_leaves_no_stale_temporary_after_the_next_save(tmp_path: Path) -> None:
    from tttlab.io.agentfile import save_agent
    from tttlab.learners import Trainer, default_config

    path = tmp_path / "agent.npz"
    # What a writer killed mid-save leaves: a temporary named after a process that is gone.
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    stale = tmp_path / f".agent.npz.{dead.stdout.strip()}.abcd1234.tmp"
    stale.write_bytes(b"half a zip")
    old_style = tmp_path / ".agent.npz.x1y2z3.tmp"  # before the pid was in the name
    old_style.write_bytes(b"half a zip")
    live = tmp_path / f".agent.npz.{os.getppid()}.live0000.tmp"  # a live writer's: kept
    live.write_bytes(b"being written")
    other = tmp_path / f".other.npz.{dead.stdout.strip()}.abcd1234.tmp"  # another target's
    other.write_bytes(b"not ours")
    trainer = Trainer(default_config("q", 1))
    save_agent(path, trainer.agent(), episodes=1, seed=0, hyperparameters={})
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["agent.npz", live.name, other.name])
