"""Result: docs/guides/check.md, section 'Judge your own agent'.

sb3-contrib's MaskablePPO on tttlab's Gymnasium environment, judged exactly as it learns.

    .venv/bin/pip install torch==2.13.0 sb3-contrib   # CPU torch: 24 s, 0.9 GB here
    .venv/bin/python experiments/ppo_sb3.py --plot docs/ppo_sb3.png

For each seat and seed, MaskablePPO (its defaults; the mask from the environment's
``action_masks()``) learns to play that seat against a uniformly random opponent. Every
``--every`` steps :func:`tttlab.integrations.sb3.exact_eval_callback` judges the model
exactly (``predict`` on every position, deterministic, masked) and logs the metrics in
Stable-Baselines3's own logger. Beside it, ``ttt train q --opponent random --as SEAT`` with
the same number of games, its exact curve from ``--log``. The script prints the curves' last
points and draws the optimal share of the seat against games played: the median over the
seeds, with the min-max band.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np


def ppo_curve(seat: str, seed: int, steps: int, every: int) -> list[dict[str, Any]]:
    from sb3_contrib import MaskablePPO

    from tttlab.envs import TicTacToeEnv
    from tttlab.integrations.sb3 import exact_eval_callback

    games = {"n": 0}

    class Counting(TicTacToeEnv):  # counts finished games, for the x axis
        def step(self, action: Any) -> Any:
            out = super().step(action)
            games["n"] += bool(out[2] or out[3])
            return out

    env = Counting(seat=seat, opponent="random")
    model = MaskablePPO("MlpPolicy", env, seed=seed, verbose=0, device="cpu")
    callback = exact_eval_callback(every=every, seat=seat, extra=lambda: {"games": games["n"]})
    model.learn(total_timesteps=steps, callback=callback)
    records: list[dict[str, Any]] = callback.judge.records
    return records


def q_curve(seat: str, seed: int, games: int, every: int, folder: Path) -> list[dict[str, Any]]:
    log = folder / f"q{seat}{seed}.jsonl"
    subprocess.run(
        [
            sys.executable, "-m", "tttlab", "train", "q", "--opponent", "random", "--as", seat,
            "--seed", str(seed), "--episodes", str(games), "--eval-every", str(every),
            "--log", str(log), "--out", str(folder / f"q{seat}{seed}.npz"), "--json",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return [json.loads(line) for line in log.read_text().splitlines()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=40_960)
    parser.add_argument("--every", type=int, default=4_096)
    parser.add_argument("--plot", type=Path, default=None)
    args = parser.parse_args()
    curves: dict[tuple[str, str], list[list[tuple[int, float]]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for seat in ("X", "O"):
            for seed in range(args.seeds):
                start = time.perf_counter()
                points = ppo_curve(seat, seed, args.steps, args.every)
                seconds = time.perf_counter() - start
                curve = [(p["games"], p[seat]["optimal_share"]) for p in points]
                curves.setdefault(("ppo", seat), []).append(curve)
                last = points[-1]
                print(
                    f"ppo {seat} seed {seed}: {last['steps']:,} steps, {last['games']:,} games, "
                    f"{seconds:.0f} s; worst case {last[seat]['worst_case']}, optimal share "
                    f"{last[seat]['optimal_share']:.3f}, score vs random "
                    f"{last[seat]['score_vs_random']:.3f}"
                )
                games = last["games"]
                every = max(1, games // 10)
                q = q_curve(seat, seed, games, every, Path(folder))
                curves.setdefault(("q", seat), []).append(
                    [(p["episode"], p[seat]["optimal_share"]) for p in q]
                )
                print(
                    f"q   {seat} seed {seed}: {games:,} games; worst case "
                    f"{q[-1][seat]['worst_case']}, optimal share {q[-1][seat]['optimal_share']:.3f}"
                )
    if args.plot:
        plot(curves, args.plot)


def plot(curves: dict[tuple[str, str], list[list[tuple[int, float]]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, seat in zip(axes, ("X", "O"), strict=True):
        for learner, colour in (("ppo", "tab:purple"), ("q", "tab:blue")):
            runs = curves.get((learner, seat), [])
            if not runs:
                continue
            n = min(len(r) for r in runs)
            x = np.median([[p[0] for p in r[:n]] for r in runs], axis=0)
            y = np.array([[p[1] for p in r[:n]] for r in runs])
            label = "MaskablePPO (sb3-contrib)" if learner == "ppo" else "ttt train q"
            ax.plot(x, np.median(y, axis=0), color=colour, label=label)
            ax.fill_between(x, y.min(axis=0), y.max(axis=0), color=colour, alpha=0.2)
        ax.set_title(f"as {seat}, against a random opponent")
        ax.set_xlabel("games played")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("exact optimal share")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    main()
