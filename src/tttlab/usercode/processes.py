"""A box's processes, seen by the grader through /proc (Linux): the tree below the box's first
process, the CPU time it had and its waits for a CPU (what a report says when the time limit
came first on a busy machine), and ending the whole tree.

Without bubblewrap no PID namespace ends a box's processes with it, and a process the
student's code started in a session of its own escapes a kill of the box's process group.
The box's caller is their subreaper (:mod:`tttlab.usercode.boxside.caller`), so while it
lives they are all below it: :func:`end_tree` kills the tree from the leaves up to the
caller, the caller last. Elsewhere (no /proc) these find nothing and end nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Usage", "end_tree", "tree", "usage"]

_PROC = Path("/proc")
#: Clock ticks a second, the unit of /proc's CPU times.
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _parents() -> dict[int, int]:
    """Every live process's parent (a zombie has ended: it runs nothing, holds nothing)."""
    parents = {}
    for entry in _PROC.glob("[0-9]*"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()
            if fields[0] != b"Z":
                parents[int(entry.name)] = int(fields[1])
    return parents


def tree(root: int) -> list[int]:
    """``root`` and every live process below it, parents before their children."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        children.setdefault(parent, []).append(pid)
    found, seen, frontier = [root], {root}, [root]
    while frontier:
        frontier = [c for p in frontier for c in children.get(p, []) if c not in seen]
        seen.update(frontier)
        found += frontier
    return found


@dataclass(frozen=True)
class Usage:
    """What a tree of processes had: CPU time (its ended children's included), and the time
    its live processes waited for a CPU (None where the kernel does not say)."""

    cpu: float
    waited: float | None


def usage(root: int) -> Usage | None:
    """The CPU time and the waits for a CPU of ``root``'s tree (None without /proc)."""
    cpu, waited = 0, 0
    known = True
    pids = tree(root)
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = (_PROC / str(pid) / "stat").read_bytes().rsplit(b")", 1)[1].split()
            cpu += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        try:
            waited += int((_PROC / str(pid) / "schedstat").read_text().split()[1])
        except (OSError, ValueError, IndexError):
            known = False
    if not (_PROC / str(root)).exists():
        return None
    return Usage(cpu / _TICKS, waited / 1e9 if known else None)


def end_tree(root: int, rounds: int = 20) -> None:
    """SIGKILL every process below ``root``, the deepest first, for a few rounds (a process
    killed leaves its children to the subreaper above it, found in the next round), then
    ``root`` itself."""
    for _ in range(rounds):
        below = tree(root)[1:]
        if not below:
            break
        for pid in reversed(below):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(root, signal.SIGKILL)
