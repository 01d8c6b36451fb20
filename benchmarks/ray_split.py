"""The proof search split across a Ray cluster, checked against one process: the first player's
moves from the empty board (one per class of the board's symmetries) are each proved by a
Ray task with a table of its own, and the driver takes the best of them (an attacker's node:
a win cancels the tasks still running). Each task gets its window: the move the search
orders first is proved exactly, every other one only asked "does it win?" (the window
(0, 1), a far cheaper question), and only if no move reached 0 are they asked again. The
design page describes the split in full; this is its first ply, run on a local cluster on
127.0.0.1 (or on ``--address HOST:PORT``). ``--full-windows`` gives every task the full
window, as the split did before. With ``--share`` the first move is proved first, alone,
and every other task starts from the entries of its table (each a finished subtree, so a
fact whatever the root): what one process's later moves reuse of the first one's proof.

Run:  .venv/bin/python benchmarks/ray_split.py [--board 7x7k5] [--cpus 2] [--memory 1024]
      [--share]

Exits 1 if the split's value differs from the single process's.
"""

from __future__ import annotations

import argparse
import logging
import os
import time

import numpy as np
import ray

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


Entries = tuple[np.ndarray, np.ndarray]  # a table's used slots and their rows


@ray.remote
def proved(
    board: str,
    move: int,
    memory_mb: int,
    window: tuple[int, int],
    known: Entries | None = None,
    keep: bool = False,
) -> tuple[int, int, int, int, float, Entries | None]:
    """(move, value from X's side, its bound, nodes, seconds, the table's entries if
    ``keep``) of the position after X plays ``move``, within ``window``, from a table that
    starts with the ``known`` entries."""
    geometry = Geometry.parse(board)
    child = Position.initial(geometry).apply(move)
    started = time.perf_counter()
    table = ProofTable(table_bits(geometry, memory_mb))
    if known is not None:
        table.rows[known[0]] = known[1]
        table.bind(geometry)
        table.entries = len(known[0])
    proof = prove(child, table=table, node_budget=UNLIMITED_NODES, window=window)
    used = np.flatnonzero(table.rows[:, 2]) if keep else None
    entries = (used, table.rows[used]) if used is not None else None
    return move, proof.value, proof.bound, proof.nodes, time.perf_counter() - started, entries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="7x7k5")
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--memory", type=int, default=1024, help="MiB per table")
    parser.add_argument("--address", default=None, help="an existing cluster's HOST:PORT")
    parser.add_argument("--full-windows", action="store_true", help="every task exact")
    parser.add_argument("--share", action="store_true", help="the first move's entries to all")
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
    windows = {m: (-1, 1) if args.full_windows or m == order[0] else (0, 1) for m in order}
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
    try:
        started = time.perf_counter()
        best, nodes, asked, known = -2, 0, 0, None
        if args.share:  # the first move alone; its table's entries then go to every task
            first = windows.pop(order[0])
            move, value, bound, n, seconds, entries = ray.get(
                proved.remote(geometry.name, order[0], args.memory, first, None, True)
            )
            nodes, asked, best, known = n, 1, value, ray.put(entries)
            print(f"  X plays {move}: value {value:+d}, {n:,} nodes, {seconds:.1f} s (shared)")
        while windows and best < 1:
            pending = [
                proved.remote(geometry.name, m, args.memory, w, known) for m, w in windows.items()
            ]
            asked += len(pending)
            windows = {}
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                move, value, bound, n, seconds, _ = ray.get(done[0])
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
        split_seconds = time.perf_counter() - started
    finally:
        ray.shutdown()
    print(
        f"split over {len(firsts)} first moves ({asked} tasks) on {args.cpus} CPUs: value "
        f"{best:+d}, {nodes:,} nodes, {split_seconds:.1f} s"
    )
    if best != single.value:
        print("the split DISAGREES with the single process")
        return 1
    print("the same value")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
