"""How many self-play episodes each learner needs, with its defaults, to become unbeatable.

For each learner and episode count, trains several seeds and evaluates each exactly:
"unbeatable" is worst case 0 on both seats; "perfect" adds optimal share 1.0 on both.
Run:  .venv/bin/python benchmarks/episodes_needed.py [--seeds 8] [--json]
"""

from __future__ import annotations

import argparse
import json

from tttlab.evaluate import evaluate
from tttlab.game import Geometry
from tttlab.train import ALGORITHMS, Trainer, default_config

COUNTS = (5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, dict[str, dict[str, int]]] = {}
    for algorithm in ALGORITHMS:
        results[algorithm] = {}
        for episodes in COUNTS:
            unbeatable = perfect = 0
            for seed in range(args.seeds):
                trainer = Trainer(default_config(algorithm, episodes, seed))
                trainer.run()
                reports = evaluate(trainer.agent(), Geometry()).values()
                if all(r.worst_case == 0 for r in reports):
                    unbeatable += 1
                    if all(r.optimal_share == 1.0 for r in reports):
                        perfect += 1
            results[algorithm][str(episodes)] = {"unbeatable": unbeatable, "perfect": perfect}
            if not args.json:
                print(
                    f"{algorithm:15s} {episodes:>8,}: unbeatable {unbeatable}/{args.seeds}, "
                    f"optimal everywhere {perfect}/{args.seeds}",
                    flush=True,
                )
    if args.json:
        print(json.dumps({"seeds": args.seeds, "results": results}))


if __name__ == "__main__":
    main()
