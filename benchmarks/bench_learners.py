"""Episodes per second of every learner, against the pure-Python course reference.

Measures, in one run on this machine:
- each learner's compiled training loop (self-play, 3×3, default hyperparameters), after a
  warm-up so that numba's compile (or cache load) is not counted;
- the whole ``ttt train q`` process (start-up, cache load, training, exact evaluation and
  the atomic save), as a user would time it;
- the course's pure-Python TD(0) program (benchmarks/reference_course.py).

Run:  .venv/bin/python benchmarks/bench_learners.py [--episodes 2000000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import reference_course

from tttlab.hyperparameters import TABLE_LEARNERS as ALGORITHMS
from tttlab.learners import Trainer, default_config


def learner_rate(algorithm: str, episodes: int) -> float:
    warm = Trainer(default_config(algorithm, 1_000, seed=1))
    warm.run()
    trainer = Trainer(default_config(algorithm, episodes, seed=0))
    started = time.perf_counter()
    trainer.run()
    return episodes / (time.perf_counter() - started)


def process_rate(algorithm: str, episodes: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        command = [
            sys.executable,
            "-m",
            "tttlab",
            "train",
            algorithm,
            "--episodes",
            str(episodes),
            "--seed",
            "0",
            "--out",
            os.path.join(folder, "a.npz"),
            "--json",
        ]
        subprocess.run(command, check=True, capture_output=True)  # warm numba's cache
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        return episodes / (time.perf_counter() - started)


def reference_rate(episodes: int) -> float:
    started = time.perf_counter()
    reference_course.train(episodes)
    return episodes / (time.perf_counter() - started)


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=2_000_000)
    parser.add_argument("--process-episodes", type=int, default=10_000_000)
    parser.add_argument("--reference-episodes", type=int, default=3_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    reference = reference_rate(args.reference_episodes)
    rows = {a: learner_rate(a, args.episodes) for a in ALGORITHMS}
    whole_q = process_rate("q", args.process_episodes)
    report = {
        "board": "3x3k3",
        "reference_course_td": round(reference),
        "learners": {
            a: {"episodes_per_second": round(r), "ratio_to_reference": round(r / reference)}
            for a, r in rows.items()
        },
        "ttt_train_q_process": {
            "episodes": args.process_episodes,
            "episodes_per_second": round(whole_q),
            "ratio_to_reference": round(whole_q / reference),
        },
    }
    if args.json:
        print(json.dumps(report))
        return
    print(f"course reference (pure Python TD(0)): {reference:,.0f} episodes/s")
    for a, r in rows.items():
        print(f"{a:15s} {r:>12,.0f} episodes/s  ×{r / reference:,.0f}")
    print(
        f"whole `ttt train q --episodes {args.process_episodes:,}` process: "
        f"{whole_q:,.0f} episodes/s  ×{whole_q / reference:,.0f}"
    )


if __name__ == "__main__":
    main()
