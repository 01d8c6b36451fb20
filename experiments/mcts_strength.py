"""Result: docs/guides/solving.md, section 'MCTS'.

How many simulations MCTS needs on 3x3 never to lose, judged exactly.

For each simulation count and seed, the seeded MCTS agent is a fixed policy; exact
evaluation over the whole game graph gives its worst case on each seat (against an opponent
that answers best, so also against `perfect`) and its results against random.

Run:  .venv/bin/python experiments/mcts_strength.py [--seeds 5] [--json]
"""

from __future__ import annotations

import argparse
import json

from tttlab.agents import MCTSAgent
from tttlab.evaluation import evaluate_seats
from tttlab.game import Geometry

COUNTS = (50, 100, 200, 500, 1000, 2000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    g = Geometry()
    rows = {}
    for sims in COUNTS:
        unbeatable = 0
        for seed in range(args.seeds):
            reports = evaluate_seats(MCTSAgent(g, simulations=sims, seed=seed), g)
            unbeatable += all(r.worst_case >= 0 for r in reports.values())
        rows[sims] = unbeatable
        if not args.json:
            print(
                f"{sims:>5} simulations: never loses (both seats) for {unbeatable}/{args.seeds} "
                "seeds",
                flush=True,
            )
    if args.json:
        print(json.dumps({"seeds": args.seeds, "unbeatable": rows}))


if __name__ == "__main__":
    main()
