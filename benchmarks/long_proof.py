"""A long proof run (8,8,5) with its progress logged, and a projection of the time it needs.

    .venv/bin/python benchmarks/long_proof.py --board 8x8k5 --minutes 60 --table-bits 27 \
        --checkpoint /tmp/885.npz --every 1800 --log /tmp/885.jsonl

Every ``--report`` seconds one JSON line: the nodes, the rate, and for the positions searched
at the first plies how many of their moves are settled, of how many. The *fraction done* is
the usual estimate of a tree search's progress from those counters: the root's settled moves
over its moves, plus the first unsettled move's share (1 / moves) times the same fraction one
ply down, and so on. It assumes the moves of a position cost alike, which a proof's do not
(the first move searched is usually the dearest), so the projection (the time so far over
the fraction done) is a rough one; the log keeps the counters for a better reading.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import reference_course  # this folder's: the reference speed

from tttlab.game import Geometry, Position
from tttlab.solvers.bitboard import SearchProgress, SearchStopped
from tttlab.solvers.longrun import prove_resumable


def fraction_done(settled: tuple[int, ...], moves: tuple[int, ...]) -> float:
    """The share of the tree searched, counting the moves at each ply as alike."""
    done, share = 0.0, 1.0
    for s, n in zip(settled, moves, strict=True):
        if n <= 0:
            break
        done += share * min(s, n) / n
        share /= n
    return done


def main() -> int:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--board", default="8x8k5")
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--table-bits", type=int, default=27)
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--every", type=float, default=1800.0, help="seconds between checkpoints")
    parser.add_argument("--report", type=float, default=60.0, help="seconds between log lines")
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args()
    geometry = Geometry.parse(args.board)
    started = time.time()
    log = args.log.open("a")

    def report(p: SearchProgress) -> None:
        line = {
            "at": round(time.time() - started, 1),
            "nodes": p.nodes,
            "rate": round(p.nodes / p.seconds) if p.seconds else 0,
            "settled": p.settled,
            "moves": p.moves,
            "done": fraction_done(p.settled, p.moves),
        }
        log.write(json.dumps(line) + "\n")
        log.flush()

    try:
        proof = prove_resumable(
            Position.initial(geometry),
            args.checkpoint,
            table_bits=args.table_bits,
            every=args.every,
            time_limit=args.minutes * 60,
            progress=report,
            progress_every=args.report,
        )
    except SearchStopped as stopped:
        log.write(json.dumps({"at": round(time.time() - started, 1), "stopped": str(stopped)}))
        log.write("\n")
        print(stopped)
        return 1
    log.write(json.dumps({"at": round(time.time() - started, 1), "value": proof.value}) + "\n")
    print(f"{geometry.name}: {proof.value} in {proof.nodes:,} nodes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
