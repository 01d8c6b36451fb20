"""The proof search split across a Ray cluster, checked against one process: the first player's
moves from the empty board (one per class of the board's symmetries) are each proved by a
Ray task, and the driver takes the best of them (an attacker's node: a win cancels the tasks
still running). Each task gets its window: the move the search orders first is proved
exactly, every other one only asked "does it win?" (the window (0, 1), a far cheaper
question), and only if no move reached 0 are they asked again. The tasks of one machine
share one table while they run (:meth:`ProofTable.shared`, a file in /dev/shm): what one
task has proved, the others find, as one process's later moves find its earlier ones'.
The design page describes the split in full; this is its first ply, run on a local cluster
on 127.0.0.1 (or on ``--address HOST:PORT``: each machine's tasks share that machine's
table). ``--own-tables`` gives each task a table of its own, ``--full-windows`` every task
the full window, as the split did before.

Run:  .venv/bin/python benchmarks/ray_split.py [--board 7x7k5] [--cpus 2] [--memory 1024]
      [--own-tables] [--full-windows] [--repeat N]

Exits 1 if the split's value differs from the single process's.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import ray
import reference_course  # this folder's: the reference speed
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from tttlab.game import Geometry, Position
from tttlab.solvers.bitboard import UNLIMITED_NODES, ProofTable, _tables, prove
from tttlab.solvers.summary import table_bits


def canonical(position: Position) -> tuple[int, int]:
    """The smallest (X, O) bitboard pair over the board's symmetries (the search's own key)."""
    images = []
    for perm in position.geometry.symmetries:
        cells = [position.cells[perm[i]] for i in range(len(perm))]
        x = sum(1 << i for i, c in enumerate(cells) if c == 1)
        o = sum(1 << i for i, c in enumerate(cells) if c == 2)
        images.append((x, o))
    return min(images)


FOLDERS = (Path("/dev/shm"), Path(tempfile.gettempdir()))


def table_file(name: str, memory_mb: int) -> Path:
    """Where this machine keeps the shared table called ``name``: in /dev/shm where there is
    room for ``memory_mb`` MiB, else in the temporary folder (each machine has its own)."""
    for folder in FOLDERS:
        if (folder / name).exists() or (
            folder.is_dir() and shutil.disk_usage(folder).free > memory_mb << 20
        ):
            return folder / name
    return FOLDERS[-1] / name


@ray.remote
def proved(
    board: str, move: int, memory_mb: int, window: tuple[int, int], shared: str | None
) -> tuple[int, int, int, int, float]:
    """(move, value from X's side, its bound, nodes, seconds) of the position after X plays
    ``move``, within ``window``, with this machine's table called ``shared`` (the other
    tasks' here), or a table of its own."""
    geometry = Geometry.parse(board)
    child = Position.initial(geometry).apply(move)
    started = time.perf_counter()
    bits = table_bits(geometry, memory_mb)
    if shared:
        table = ProofTable.shared(table_file(shared, memory_mb), bits, geometry)
    else:
        table = ProofTable(bits)
    proof = prove(child, table=table, node_budget=UNLIMITED_NODES, window=window)
    return move, proof.value, proof.bound, proof.nodes, time.perf_counter() - started


@ray.remote(num_cpus=0)
def forget(name: str) -> None:
    """Remove this machine's shared table called ``name``, if it has one."""
    for folder in FOLDERS:
        (folder / name).unlink(missing_ok=True)


def forget_everywhere(name: str) -> None:
    """Remove the shared table from every machine of the cluster."""
    ray.get(
        [
            forget.options(
                scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
            ).remote(name)
            for node in ray.nodes()
            if node["Alive"]
        ]
    )


def split(
    geometry: Geometry, order: list[int], memory: int, full_windows: bool, shared: str | None
) -> tuple[int, int, int]:
    """The root's value from the tasks, the nodes they searched in all, and how many ran."""
    windows = {m: (-1, 1) if full_windows or m == order[0] else (0, 1) for m in order}
    best, nodes, asked = -2, 0, 0
    while windows and best < 1:
        pending = [proved.remote(geometry.name, m, memory, w, shared) for m, w in windows.items()]
        asked += len(pending)
        windows = {}
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            move, value, bound, n, seconds = ray.get(done[0])
            nodes += n
            said = {0: "value", -1: "at most", 1: "at least"}[bound]
            print(f"  X plays {move}: {said} {value:+d}, {n:,} nodes, {seconds:.1f} s")
            if bound < 0 and value >= 0:
                windows[move] = (-1, 1)  # not a win: asked again only if nothing holds 0
            else:
                best = max(best, value)
            if best == 1:  # the attacker's node is proved: the rest are not needed
                for task in pending:
                    ray.cancel(task, force=True)
                break
        if best >= 0:
            windows = {}  # every move left is at most 0, and one reaches 0: the value
    return best, nodes, asked


def main() -> int:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="7x7k5")
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--memory", type=int, default=1024, help="MiB per table")
    parser.add_argument("--address", default=None, help="an existing cluster's HOST:PORT")
    parser.add_argument("--full-windows", action="store_true", help="every task exact")
    parser.add_argument("--own-tables", action="store_true", help="a table per task")
    parser.add_argument("--repeat", type=int, default=1, help="splits to run (their order varies)")
    args = parser.parse_args()
    geometry = Geometry.parse(args.board)
    root = Position.initial(geometry)

    started = time.perf_counter()
    single = prove(root, table_bits=table_bits(geometry, args.memory), node_budget=UNLIMITED_NODES)
    single_seconds = time.perf_counter() - started
    print(
        f"one process: {geometry.name} value {single.value:+d}, {single.nodes:,} nodes, "
        f"{single_seconds:.1f} s",
        flush=True,
    )

    firsts: dict[tuple[int, int], int] = {}
    for move in root.legal_moves:
        firsts.setdefault(canonical(root.apply(move)), move)
    # the move the search orders first (the centre), proved exactly; the others asked if they win
    order = sorted(firsts.values(), key=lambda m: -int(_tables(geometry).prior[m]))
    # A local cluster started by ray.init() turns on token authentication (Ray 2.59 on) and
    # leaves its token in ~/.ray/auth_token, which later drivers then present to clusters
    # started without it (`ray start`, as `ttt sweep --address` joins) and are refused: off.
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    if args.address:
        ray.init(address=args.address, logging_level=logging.ERROR, log_to_driver=False)
    else:
        ray.init(
            num_cpus=args.cpus,
            include_dashboard=False,
            logging_level=logging.ERROR,
            log_to_driver=False,
            _node_ip_address="127.0.0.1",
        )
    disagreed = False
    try:
        for run in range(args.repeat):
            shared = None if args.own_tables else f"tttlab-split-{uuid.uuid4().hex}"
            started = time.perf_counter()
            try:
                best, nodes, asked = split(geometry, order, args.memory, args.full_windows, shared)
            finally:
                if shared:
                    forget_everywhere(shared)
            tables = "a table per task" if args.own_tables else "one table shared"
            print(
                f"split {run + 1} over {len(firsts)} first moves ({asked} tasks, {tables}) on "
                f"{args.cpus} CPUs: value {best:+d}, {nodes:,} nodes "
                f"({nodes / single.nodes:.2f} of one process's), "
                f"{time.perf_counter() - started:.1f} s",
                flush=True,
            )
            disagreed |= best != single.value
    finally:
        ray.shutdown()
    if disagreed:
        print("the split DISAGREES with the single process")
        return 1
    print("the same value")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
