"""Result: docs/guides/networks.md, section 'From the table to a network: `ttt train dqn`'.

The families on 3x3: `ttt train q`, `dqn`, `ppo` and `alphazero`, exact learning curves
over 5 seeds.

    .venv/bin/python experiments/dqn_vs_q.py --plot docs/dqn_vs_q.png

Runs each learner with its defaults and the same budget (65,536 games, dqn's default),
each as `ttt train` with ``--log`` (the exact metrics every ``--eval-every`` games), then
prints, at each point, the spread of the exact optimal share over the seeds and how many
seeds are perfect (worst case 0 on both seats and optimal share 1.0), and draws one plot of
the optimal share against games, per seat, the median with the min-max band.

Then it retrains each learner's seed 0 for its first ``--early`` games (of the same
65,536-game schedule) and prints the decisions it gets wrong, the earliest first: the
position, its values of the moves and the solver's optimal moves.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

LEARNERS = ("q", "dqn", "ppo", "alphazero")
COLOURS = {"q": "tab:blue", "dqn": "tab:orange", "ppo": "tab:purple", "alphazero": "tab:green"}
SEATS = ("X", "O")


def curve(learner: str, seed: int, episodes: int, every: int, folder: Path) -> list[dict[str, Any]]:
    log = folder / f"{learner}{seed}.jsonl"
    subprocess.run(
        [
            sys.executable, "-m", "tttlab", "train", learner, "--seed", str(seed),
            "--episodes", str(episodes), "--eval-every", str(every), "--log", str(log),
            "--out", str(folder / f"{learner}{seed}.npz"), "--json",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return [json.loads(line) for line in log.read_text().splitlines()]


def perfect(point: dict[str, Any]) -> bool:
    return all(point[s]["worst_case"] >= 0 and point[s]["optimal_share"] == 1.0 for s in SEATS)


def early_agent(learner: str, episodes: int, early: int) -> tuple[Any, int]:
    """``learner``'s seed 0 after its first ``early`` games of an ``episodes`` run."""
    import importlib

    import tttlab
    from tttlab.game import Geometry

    if learner == "q":  # a constant schedule: the first games of any budget are the same
        return tttlab.train("q", episodes=early, seed=0, progress=False), early
    module = importlib.import_module(f"tttlab.neural.{learner}")
    name = {"dqn": "DQN", "ppo": "PPO", "alphazero": "AlphaZero"}[learner]
    config = getattr(module, f"{name}Config")(Geometry(), episodes=episodes, seed=0)
    trainer = getattr(module, f"{name}Trainer")(config)
    trainer.run(-(-early // config.games_per_iteration))
    return trainer.agent(), trainer.done


def early_mistakes(learner: str, episodes: int, early: int, limit: int) -> None:
    from tttlab.game import Geometry, Position
    from tttlab.solvers import solve_table

    geometry = Geometry()
    agent, done = early_agent(learner, episodes, early)
    solution = solve_table(geometry)
    print(f"\n{learner} seed 0 after {done:,} of {episodes:,} games; decisions it gets wrong:")
    found = 0
    for seat in SEATS:
        # every position the agent can reach on this seat: its greedy moves (all ties),
        # any reply
        frontier, seen = [Position.initial(geometry)], set()
        while frontier and found < limit:
            position = frontier.pop(0)
            if position.id in seen or position.is_terminal:
                continue
            seen.add(position.id)
            if position.to_move.name == seat:
                moves = list(agent.move_probabilities(position))
                optimal = solution.optimal_moves(position)
                if not set(moves) <= set(optimal):
                    values = agent.move_values(position) or {}
                    shown = ", ".join(f"{m}: {v:+.2f}" for m, v in sorted(values.items()))
                    print(
                        f"  {seat} to move in {position}: plays {moves}, optimal {list(optimal)}"
                        f" (value {solution.value_of(position):+d} for X); values {{{shown}}}"
                    )
                    found += 1
            else:
                moves = list(position.legal_moves)
            frontier.extend(position.apply(m) for m in moves)
    if not found:
        print("  none")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--episodes", type=int, default=65536)
    parser.add_argument("--every", type=int, default=2048)
    parser.add_argument("--early", type=int, default=4096)
    parser.add_argument("--plot", type=Path, default=Path("artifacts/dqn_vs_q.png"))
    parser.add_argument("--learners", default=",".join(LEARNERS))
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    learners = tuple(args.learners.split(","))
    runs: dict[str, list[list[dict[str, Any]]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for learner in learners:
            runs[learner] = [
                curve(learner, seed, args.episodes, args.every, Path(folder)) for seed in seeds
            ]
    episodes = [p["episode"] for p in runs[learners[0]][0]]
    print("| games | " + " | ".join(f"{n} X | {n} O | {n} perfect" for n in learners) + " |")
    print("| ---: " * (1 + 3 * len(learners)) + "|")
    for i, n in enumerate(episodes):
        if n & (n - 1) and n != episodes[-1]:
            continue  # the table shows powers of two; the plot shows every point
        cells = [f"{n:,}"]
        for learner in learners:
            points = [run[i] for run in runs[learner]]
            for seat in SEATS:
                shares = [p[seat]["optimal_share"] for p in points]
                cells.append(f"{min(shares):.3f}–{max(shares):.3f}")
            cells.append(f"{sum(perfect(p) for p in points)} of {len(points)}")
        print("| " + " | ".join(cells) + " |")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    for ax, seat in zip(axes, SEATS, strict=True):
        for learner in learners:
            colour = COLOURS[learner]
            shares = np.array(
                [[p[seat]["optimal_share"] for p in run[1:]] for run in runs[learner]]
            )
            x = episodes[1:]
            ax.plot(x, np.median(shares, 0), color=colour, label=f"{learner} (median)")
            ax.fill_between(x, shares.min(0), shares.max(0), color=colour, alpha=0.25)
        ax.set_xscale("log", base=2)
        ax.set_title(f"as {seat}")
        ax.set_xlabel("self-play games")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("exact optimal share")
    axes[0].legend(loc="lower right")
    figure.suptitle(f"3×3, defaults, {len(seeds)} seeds (band: min to max)", fontsize=10)
    figure.tight_layout()
    args.plot.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(args.plot, dpi=90)
    print(f"\nwrote {args.plot}")
    for learner in learners:
        early_mistakes(learner, args.episodes, args.early, limit=3)


if __name__ == "__main__":
    main()
