"""Result: docs/guides/networks.md, section 'From the table to a network: `ttt train dqn`'.

DQN's two choices measured on 3x3: Double DQN on or off, mover or X perspective.

    .venv/bin/python experiments/dqn_variants.py

Each variant trains 5 seeds with the defaults otherwise (65,536 games), in this process,
and is judged exactly every 8,192 games. A point is *perfect* when both seats have worst
case 0 and optimal share 1.0. Prints, per variant, how many seeds are perfect at each point.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from tttlab.evaluation import evaluate_seats
from tttlab.game import Geometry
from tttlab.neural.dqn import DQNConfig, DQNTrainer

VARIANTS: dict[str, dict[str, Any]] = {
    "double, mover (default)": {},
    "no double, mover": {"double": False},
    "double, x": {"perspective": "x"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--episodes", type=int, default=65536)
    parser.add_argument("--points", type=int, default=8)
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    geometry = Geometry()
    for name, options in VARIANTS.items():
        per_point = [0] * args.points
        worst = 0
        started = time.perf_counter()
        for seed in seeds:
            trainer = DQNTrainer(DQNConfig(geometry, args.episodes, seed, **options))
            chunk = max(1, trainer.config.iterations // args.points)
            for i in range(args.points):
                trainer.run(chunk if i < args.points - 1 else trainer.config.iterations)
                reports = evaluate_seats(trainer.agent(), geometry)
                per_point[i] += all(
                    r.worst_case >= 0 and r.optimal_share == 1.0 for r in reports.values()
                )
                worst += any(r.worst_case < 0 for r in reports.values())
        seconds = time.perf_counter() - started
        print(
            f"{name}: perfect seeds per point {per_point} (of {len(seeds)}), "
            f"{sum(per_point)} of {len(seeds) * args.points} points; "
            f"{worst} points with a seat that can lose; {seconds:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
