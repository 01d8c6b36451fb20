"""How each part of tttlab scales with the board: one fresh process per geometry.

For each geometry (3x3, 3x4, 4x4 with k = 3 and k = 4) it reports:
- reachable positions, and the time and peak memory (RSS) to enumerate them;
- the time to solve the board by the compiled proof search (and by the full table where the
  table is built);
- the memory of a Q-learner's table, full and reduced by symmetry;
- training episodes per second (Q-learning self-play, symmetry-reduced table, after warm-up);
- MCTS simulations per second from the empty board.

Run:  .venv/bin/python benchmarks/scaling.py [--json] [--boards 3x3k3,4x4k4]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import reference_course  # this folder's: the reference speed

BOARDS = ("3x3k3", "3x4k3", "4x4k3", "4x4k4")

CHILD = r"""
import json, resource, sys, time
import numpy as np
from tttlab.game import Geometry, Position, state_space, table_layout
from tttlab.solvers.bitboard import prove
from tttlab.agents import MCTSAgent
from tttlab.learners import Trainer, default_config

g = Geometry.parse(sys.argv[1])
out = {"board": g.name}
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter(); space = state_space(g); out["enumerate_seconds"] = time.perf_counter() - t
out["positions"] = space.size
out["enumerate_peak_mib"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024
out["tables_mib"] = space.nbytes / 2**20
space.symmetry  # derived on first use; learners need it
prove(Position.initial(Geometry(3, 3, 3)), table_bits=10)  # compile / load the cache
t = time.perf_counter(); proof = prove(Position.initial(g), table_bits=22)
out["search_seconds"] = time.perf_counter() - t
out["value"] = proof.value
out["search_nodes"] = proof.nodes
if space.size <= 1_000_000:
    from tttlab.solvers import solve_table
    t = time.perf_counter(); solve_table(g); out["table_solve_seconds"] = time.perf_counter() - t
full, sym = table_layout(space, False), table_layout(space, True)
out["q_table_mib_full"] = full.size * g.cells * 8 / 2**20
out["q_table_mib_symmetric"] = sym.size * g.cells * 8 / 2**20
out["symmetric_rows"] = sym.size
Trainer(default_config("q", 100, seed=1, geometry=g)).run()  # warm-up
episodes = 1_000_000 if g.cells <= 12 else 300_000
trainer = Trainer(default_config("q", episodes, seed=0, geometry=g))
t = time.perf_counter()
trainer.run()
out["train_episodes_per_second"] = episodes / (time.perf_counter() - t)
agent = MCTSAgent(g, simulations=1000)
agent.visit_counts(Position.initial(g), np.random.default_rng(0))
sims = 50_000
agent = MCTSAgent(g, simulations=sims)
t = time.perf_counter(); agent.visit_counts(Position.initial(g), np.random.default_rng(0))
out["mcts_simulations_per_second"] = sims / (time.perf_counter() - t)
out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--boards", default=",".join(BOARDS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for board in args.boards.split(","):
        # The enumerator itself, not the disk cache of its tables.
        env = dict(os.environ, TTTLAB_CACHE_DIR="off")
        result = subprocess.run(
            [sys.executable, "-c", CHILD, board],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        rows.append(json.loads(result.stdout.strip().splitlines()[-1]))
    if args.json:
        print(json.dumps(rows))
        return
    header = (
        "board | positions | enumerate | enum. peak | search proof | table solve | "
        "Q table full / symmetric | train ep/s | MCTS sims/s"
    )
    print(header)
    for r in rows:
        table = f"{r['table_solve_seconds']:.2f} s" if "table_solve_seconds" in r else "-"
        print(
            f"{r['board']} | {r['positions']:,} | {r['enumerate_seconds']:.2f} s | "
            f"{r['enumerate_peak_mib']:,.0f} MiB | {r['search_seconds']:.3f} s "
            f"({r['search_nodes']:,} nodes, value {r['value']:+d}) | {table} | "
            f"{r['q_table_mib_full']:,.1f} / {r['q_table_mib_symmetric']:,.1f} MiB | "
            f"{r['train_episodes_per_second']:,.0f} | {r['mcts_simulations_per_second']:,.0f}"
        )


if __name__ == "__main__":
    main()
