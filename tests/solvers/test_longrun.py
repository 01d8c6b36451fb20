"""Long proofs (:mod:`tttlab.solvers.longrun`): a run stopped by its time limit, or killed,
continues from its checkpoint to the same value, with less work than starting over; a
checkpoint of another proof or table is refused in one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tttlab.game import Geometry, Position
from tttlab.solvers import longrun
from tttlab.solvers.bitboard import ProofTable, SearchStopped, prove
from tttlab.solvers.longrun import (
    CheckpointError,
    load_checkpoint,
    prove_resumable,
    save_checkpoint,
)

BOARD = Geometry(8, 4, 4)  # a draw in about 4 million nodes, 3-4 s


def test_a_run_stopped_by_its_time_limit_continues_from_its_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "run.npz"
    root = Position.initial(Geometry(7, 4, 4))  # 0.25 million nodes, under a second
    with pytest.raises(SearchStopped):
        prove_resumable(root, path, table_bits=22, every=0.05, time_limit=0.2)
    table = ProofTable(22)
    done = load_checkpoint(path, root, table)
    assert done > 0
    assert table.entries > 0
    resumed = prove_resumable(root, path, table_bits=22)
    fresh = prove(root, table_bits=22)
    assert resumed.value == fresh.value == 0
    assert resumed.nodes - done < fresh.nodes  # the resumed run's own work


def test_a_killed_run_continues_where_its_last_checkpoint_left_it(tmp_path: Path) -> None:
    path = tmp_path / "run.npz"
    code = (
        "from pathlib import Path\n"
        "from tttlab.game import Geometry, Position\n"
        "from tttlab.solvers.longrun import prove_resumable\n"
        f"prove_resumable(Position.initial(Geometry(8, 4, 4)), Path({str(path)!r}), 22, 0.2)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 60
        while not path.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert path.exists()
    root = Position.initial(BOARD)
    done = load_checkpoint(path, root, ProofTable(22))
    resumed = prove_resumable(root, path, table_bits=22)
    assert resumed.value == 0
    assert resumed.nodes > done > 0


def test_a_run_stopped_by_sigterm_saves_its_table_first(tmp_path: Path) -> None:
    """A scheduler stops a job with SIGTERM: the run saves as on a Ctrl-C, then ends with
    KeyboardInterrupt (the command line's exit status 130)."""
    path = tmp_path / "run.npz"
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tttlab.game import Geometry, Position\n"
        "from tttlab.solvers.longrun import prove_resumable\n"
        "def told(progress):\n"
        "    print('searching', flush=True)\n"
        "try:\n"
        f"    prove_resumable(Position.initial(Geometry(8, 8, 5)), Path({str(path)!r}), 20,\n"
        "                    600, progress=told, progress_every=0.2)\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(130)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL),  # (not inherited)
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "searching\n"  # the search runs: no save yet
        assert not path.exists()
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=60) == 130
    finally:
        child.kill()
    table = ProofTable(20)
    load_checkpoint(path, Position.initial(Geometry(8, 8, 5)), table)
    assert table.entries > 0


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_during_a_save_is_heard_once_the_save_is_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int
) -> None:
    """A Ctrl-C or SIGTERM while a checkpoint is written would stop the write, and the run
    would lose the work since the save before: it is heard once the file is written."""
    path = tmp_path / "run.npz"
    root = Position.initial(Geometry(7, 4, 4))
    saves: list[int] = []

    def save_then_stopped(path: Path, position: Position, table: ProofTable, nodes: int) -> int:
        os.kill(os.getpid(), signum)  # (Python runs the handler at the next instruction)
        time.sleep(0.01)
        saves.append(save_checkpoint(path, position, table, nodes))
        return saves[-1]

    monkeypatch.setattr(longrun, "save_checkpoint", save_then_stopped)
    # as in a terminal (a shell that starts the suite in the background ignores SIGINT)
    outer = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with pytest.raises(KeyboardInterrupt):
            prove_resumable(root, path, table_bits=22, every=0.05)
        handlers = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)]
    finally:
        for number, handler in outer.items():
            signal.signal(number, handler)
    assert handlers == [signal.default_int_handler, signal.SIG_DFL]  # as they were
    assert len(saves) == 1  # the periodic save that heard it, whole; no other after it
    assert load_checkpoint(path, root, ProofTable(22)) > 0


def test_a_checkpoint_of_another_proof_or_table_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.npz"
    root = Position.initial(Geometry(4, 4, 4))
    table = ProofTable(12)
    prove(root, table=table)
    assert save_checkpoint(path, root, table, 100) == table.entries > 0
    other = Position.initial(Geometry(5, 4, 4))
    with pytest.raises(CheckpointError, match=r"holds the proof of 4x4k4 from"):
        load_checkpoint(path, other, ProofTable(12))
    with pytest.raises(CheckpointError, match=r"a table of 4,096 slots, not 8,192"):
        load_checkpoint(path, root, ProofTable(13))
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="is not a proof checkpoint"):
        load_checkpoint(tmp_path / "junk.npz", root, ProofTable(12))
    np.savez(tmp_path / "other.npz", format=np.array("something else"))
    with pytest.raises(CheckpointError, match="is not a proof checkpoint"):
        load_checkpoint(tmp_path / "other.npz", root, ProofTable(12))
    reloaded = ProofTable(12)
    assert load_checkpoint(path, root, reloaded) == 100
    assert np.array_equal(reloaded.rows, table.rows)


def test_a_checkpoint_of_another_k_or_damaged_or_incomplete_is_refused(tmp_path: Path) -> None:
    """The same empty board with another k (its position string is the same), an entry
    changed after saving, a field missing or not an array: each refused, never believed."""
    k3, k4 = Position.initial(Geometry(5, 4, 3)), Position.initial(Geometry(5, 4, 4))
    table = ProofTable(12)
    prove(k3, table=table)
    path = tmp_path / "k3.npz"
    save_checkpoint(path, k3, table, 10)
    with pytest.raises(CheckpointError, match=r"holds the proof of 5x4k3 from .*not of 5x4k4"):
        load_checkpoint(path, k4, ProofTable(12))
    with np.load(path, allow_pickle=False) as data:
        fields = {name: data[name] for name in data.files}
    forged = {**fields, "rows": fields["rows"].copy()}
    forged["rows"][0, 2] ^= 3  # another value for the first entry
    np.savez(tmp_path / "forged.npz", **forged)
    with pytest.raises(CheckpointError, match="is damaged"):
        load_checkpoint(tmp_path / "forged.npz", k3, ProofTable(12))
    for name in ("board", "digest", "used"):
        np.savez(tmp_path / "part.npz", **{n: v for n, v in fields.items() if n != name})
        with pytest.raises(CheckpointError, match=f"is not a proof checkpoint \\(its '{name}'\\)"):
            load_checkpoint(tmp_path / "part.npz", k3, ProofTable(12))
    with zipfile.ZipFile(tmp_path / "member.npz", "w") as archive:
        archive.writestr("rows", b"not an array")
    with pytest.raises(CheckpointError, match="is not a proof checkpoint"):
        load_checkpoint(tmp_path / "member.npz", k3, ProofTable(12))
