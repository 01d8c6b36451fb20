"""Boxes are shared out among the CPUs machine-wide: two graders' boxes never share a CPU
while another is free (two ``ttt check`` processes each used to pin its box to CPU 0)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from contextlib import ExitStack
from pathlib import Path

import pytest

from tttlab.usercode import cpus

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no /proc")

HOLDER = textwrap.dedent(
    """
    import os, sys
    from tttlab.usercode.cpus import held_cpu
    os.sched_getaffinity = lambda pid: {0, 1, 2}
    with held_cpu() as cpu:
        print(cpu, flush=True)
        sys.stdin.read()
    """
)


@pytest.fixture
def own_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary folder of the test's own: the suite's other boxes hold places in the
    machine's."""
    monkeypatch.setattr(cpus.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: {0, 1, 2})
    return tmp_path


def _holder(tmp: Path) -> tuple[subprocess.Popen[str], int]:
    """Another grader, holding a CPU for a box until its stdin closes."""
    env = {**os.environ, "TMPDIR": str(tmp)}
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env=env,
    )  # fmt: skip
    assert child.stdout is not None
    return child, int(child.stdout.readline())


def test_another_graders_box_goes_to_another_cpu(own_tmp: Path) -> None:
    child, theirs = _holder(own_tmp)
    try:
        assert theirs == 0
        with cpus.held_cpu() as mine:
            assert mine == 1  # not the other grader's
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait()
    with cpus.held_cpu() as after:  # the place was let go when the other grader ended
        assert after == 0


def test_a_killed_grader_lets_its_cpu_go(own_tmp: Path) -> None:
    child, theirs = _holder(own_tmp)
    child.kill()
    child.wait()
    with cpus.held_cpu() as mine:
        assert mine == theirs == 0


def test_boxes_spread_over_every_cpu_before_any_gets_a_second(own_tmp: Path) -> None:
    with ExitStack() as stack:
        held = [stack.enter_context(cpus.held_cpu()) for _ in range(5)]
        assert held == [0, 1, 2, 0, 1]
        assert sorted(p.name for p in (own_tmp / f"tttlab-{os.getuid()}-cpus").iterdir()) == [
            "cpu0.0", "cpu0.1", "cpu1.0", "cpu1.1", "cpu2.0",
        ]  # fmt: skip
    with cpus.held_cpu() as again:
        assert again == 0


def test_a_folder_that_is_not_the_users_own_is_not_used(own_tmp: Path) -> None:
    """A name taken by something else (a link to another folder): the boxes of this process
    alone are shared out, and nothing is written where the link points."""
    elsewhere = own_tmp / "elsewhere"
    elsewhere.mkdir()
    (own_tmp / f"tttlab-{os.getuid()}-cpus").symlink_to(elsewhere)
    assert cpus.folder() is None
    with cpus.held_cpu() as first, cpus.held_cpu() as second:
        assert (first, second) == (0, 1)
    assert list(elsewhere.iterdir()) == []


def test_the_users_own_folder_is_made_the_users_alone(own_tmp: Path) -> None:
    name = own_tmp / f"tttlab-{os.getuid()}-cpus"
    name.mkdir()
    name.chmod(0o777)
    with cpus.held_cpu() as cpu:
        assert cpu == 0
    assert name.stat().st_mode & 0o777 == 0o700
    assert [p.name for p in name.iterdir()] == ["cpu0.0"]


def test_past_every_place_a_box_takes_the_cpu_of_this_processs_fewest(
    own_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cpus, "PLACES", 1)
    with ExitStack() as stack:
        held = [stack.enter_context(cpus.held_cpu()) for _ in range(5)]
    assert held == [0, 1, 2, 0, 1]
    names = sorted(p.name for p in (own_tmp / f"tttlab-{os.getuid()}-cpus").iterdir())
    assert names == ["cpu0.0", "cpu1.0", "cpu2.0"]
