"""The one training driver: batches that land on evaluation points and checkpoints, for
tables and networks alike; signals; what its watchers are told (the watchers themselves, and
output off a terminal: tests/training/test_watchers.py)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from tttlab.errors import TrainingDiverged
from tttlab.game import DEFAULT
from tttlab.io import load_agent_file
from tttlab.training import Outputs, Tick, Watcher, drive, resume, start

#: A tiny DQN run (64 games in iterations of 16) for the network tests here: one set of
#: hyperparameters, so JAX compiles its iteration once and its persistent cache serves the rest.
TINY = {"batch": 16, "updates": 1, "minibatch": 16}


class Recorder(Watcher):
    def __init__(self) -> None:
        self.ticks: list[Tick] = []
        self.calls: list[str] = []

    def progress(self, tick: Tick) -> None:
        self.ticks.append(tick)

    def saving(self) -> None:
        self.calls.append("saving")

    def finished(self, summary: dict[str, Any], interrupted: bool) -> None:
        self.calls.append("finished")

    def close(self) -> None:
        self.calls.append("close")


def test_table_batches_land_on_points_and_checkpoints(tmp_path: Path) -> None:
    run = start("q", DEFAULT, 5000, seed=0)
    seen = Recorder()
    outputs = Outputs(
        out=tmp_path / "q.npz",
        log=tmp_path / "q.jsonl",
        checkpoint=tmp_path / "q.ckpt.npz",
        checkpoint_every=2000,
    )
    result = drive(run, outputs=outputs, eval_every=1000, watchers=[seen])
    assert [r["episode"] for r in result.records] == [0, 1000, 2000, 3000, 4000, 5000]
    assert [t.done for t in seen.ticks if t.point is not None] == [1000, 2000, 3000, 4000, 5000]
    assert all(t.done % 1000 == 0 or t.done == 5000 for t in seen.ticks if t.point)
    assert seen.calls == ["saving", "finished", "close"]
    checkpoint = load_agent_file(tmp_path / "q.ckpt.npz").meta["checkpoint"]
    assert checkpoint["done"] == 4000  # the last checkpoint before the end
    lines = (tmp_path / "q.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == result.records
    assert result.summary["evaluation"]["X"] == result.records[-1]["X"]


def test_network_iterations_cross_the_points(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    run = start("dqn", DEFAULT, 64, seed=0, hyperparameters=TINY)
    result = drive(run, eval_every=24, points=True, judge=False, signals=False)
    # whole iterations of 16 games: a point after each iteration that crosses a multiple
    assert [r["episode"] for r in result.records] == [0, 32, 48, 64]
    assert result.summary["episodes"] == 64
    assert "evaluation" not in result.summary


@pytest.mark.parametrize("algorithm", ["dqn"])  # every network learner runs the same loop
def test_a_run_that_diverges_stops_and_keeps_its_last_finite_state(
    tmp_path: Path, algorithm: str
) -> None:
    """A network that stops being finite at its third iteration: one line that names the
    iteration, no agent file, no NaN curve point, and a checkpoint of the second iteration
    that resumes (was: a NaN agent handed out, judged and saved)."""
    jax = pytest.importorskip("jax")
    run = start(algorithm, DEFAULT, 64, seed=0, hyperparameters=TINY)
    trainer: Any = getattr(run, "trainer")  # noqa: B009
    step = trainer._step

    def poisoned(carry: Any, iteration: Any) -> Any:
        carry, metrics = step(carry, iteration)
        if int(iteration) == 2:
            carry = jax.tree_util.tree_map(
                lambda a: a * float("nan") if a.dtype.kind == "f" else a, carry
            )
        return carry, metrics

    trainer._step = poisoned
    outputs = Outputs(out=tmp_path / "net.npz", checkpoint=tmp_path / "net.ckpt.npz")
    seen = Recorder()
    with pytest.raises(TrainingDiverged) as caught:
        drive(run, outputs=outputs, eval_every=16, watchers=[seen], signals=False)
    message = str(caught.value)
    assert "\n" not in message
    assert f"{algorithm} diverged at iteration 3 of 4 (after 32 self-play games)" in message
    assert "net.ckpt.npz holds the last finite state (32 self-play games)" in message
    assert not (tmp_path / "net.npz").exists()
    assert all(t.point is None or t.done <= 32 for t in seen.ticks)
    kept = load_agent_file(tmp_path / "net.ckpt.npz")
    assert kept.meta["checkpoint"]["iteration"] == 2
    assert resume(tmp_path / "net.ckpt.npz", algorithm).done == 32


def test_a_reader_gone_before_the_save_means_no_file(tmp_path: Path) -> None:
    class Gone(Watcher):
        def saving(self) -> None:
            raise BrokenPipeError

    with pytest.raises(BrokenPipeError):
        drive(start("q", DEFAULT, 2000), outputs=Outputs(out=tmp_path / "a.npz"), watchers=[Gone()])
    assert list(tmp_path.iterdir()) == []


def test_a_reader_gone_during_the_save_leaves_no_file(tmp_path: Path) -> None:
    """The web server dies while its trainer saves: the ``done`` line cannot be written, so
    the file it just wrote is removed (the README promises no file from an orphan)."""

    class GoneAtTheEnd(Watcher):
        def finished(self, summary: dict[str, Any], interrupted: bool) -> None:
            assert Path(summary["out"]).exists()  # it was written...
            raise BrokenPipeError

    with pytest.raises(BrokenPipeError):
        drive(
            start("q", DEFAULT, 2000),
            outputs=Outputs(out=tmp_path / "a.npz"),
            watchers=[GoneAtTheEnd()],
        )
    assert list(tmp_path.iterdir()) == []  # ... and removed


def test_a_signal_stops_at_the_end_of_a_batch_and_keeps_everything(tmp_path: Path) -> None:
    class Interrupt(Watcher):
        def progress(self, tick: Tick) -> None:
            if tick.done >= 3000:
                os.kill(os.getpid(), signal.SIGINT)

    run = start("q", DEFAULT, 1_000_000, seed=1)
    outputs = Outputs(out=tmp_path / "a.npz", checkpoint=tmp_path / "a.ckpt.npz")
    result = drive(run, outputs=outputs, watchers=[Interrupt()])
    assert result.interrupted
    done = result.summary["episodes"]
    assert 3000 <= done < 1_000_000
    assert load_agent_file(tmp_path / "a.npz").meta["episodes"] == done
    resumed = resume(tmp_path / "a.ckpt.npz", "q")
    assert resumed.done == done
    assert resumed.resumed_from == done
