"""`ttt train alphazero|dqn|ppo` with its defaults, one whole process per seed, judged exactly.

    .venv/bin/python benchmarks/bench_network.py                       # alphazero, 3x3, seeds 0-4
    .venv/bin/python benchmarks/bench_network.py --algorithm dqn       # dqn, 3x3, seeds 0-4
    .venv/bin/python benchmarks/bench_network.py --algorithm dqn --board 4x4k4 --seeds 0 \\
        --episodes 100000000 --minutes 10                                # stopped by Ctrl-C

Each run's time is the whole process (start-up, compilation, training, the exact
evaluation that `ttt train` prints). With ``--minutes`` the run gets Ctrl-C after that many
minutes (it saves what it learned and exits 130). Boards whose graph is too big for
`ttt train`'s own evaluation, and stopped runs, are judged afterwards by `ttt eval` over the
full table, timed separately.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import reference_course  # this folder's: the reference speed

from tttlab.io import load_agent_file


def ttt(*args: str, minutes: float | None = None) -> tuple[dict[str, object] | None, float]:
    """Run ``ttt ARGS --json``: (its JSON, or None when stopped by Ctrl-C; seconds)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tttlab", *args, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        stdout, stderr = proc.communicate(timeout=None if minutes is None else minutes * 60)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate()
    seconds = time.perf_counter() - started
    if proc.returncode == 130:
        print(stderr.strip().splitlines()[-1], flush=True)
        return None, seconds
    if proc.returncode != 0:
        raise SystemExit(f"ttt {' '.join(args)} failed: {stderr.strip()}")
    return json.loads(stdout), seconds


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithm", choices=["alphazero", "dqn", "ppo"], default="alphazero")
    parser.add_argument("--board", default="3x3k3")
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--episodes", type=int, default=None)
    parser.add_argument("--minutes", type=float, default=None, help="Ctrl-C after this long")
    parser.add_argument("--keep", type=Path, default=None, help="keep the agent files here")
    parser.add_argument("train_options", nargs="*", help="more `ttt train` options, after --")
    args = parser.parse_args()
    perfect = unbeatable = 0
    seeds = [int(s) for s in args.seeds.split(",")]
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for seed in seeds:
            out = Path(folder) / f"{args.algorithm}{seed}.npz"
            extra = ["--episodes", str(args.episodes)] if args.episodes else []
            summary, seconds = ttt(
                "train", args.algorithm, "--board", args.board, "--seed", str(seed),
                "--out", str(out), *extra, *args.train_options, minutes=args.minutes,
            )  # fmt: skip
            evaluation = summary.get("evaluation") if summary else None
            judged = ""
            if not isinstance(evaluation, dict):
                evaluation, eval_seconds = ttt("eval", str(out))
                judged = f" (ttt eval: {eval_seconds:.0f} s)"
            assert isinstance(evaluation, dict)
            games = summary["episodes"] if summary else load_agent_file(out).meta["episodes"]
            seats = [
                f"{seat}: worst {r['worst_case']:+d} optimal {r['optimal_share']:.4f}"
                f" loses to random {r['vs_random']['loss']:.2g}"
                for seat, r in evaluation.items()
            ]
            ok = all(
                r["worst_case"] >= 0 and r["optimal_share"] == 1.0 for r in evaluation.values()
            )
            perfect += ok
            unbeatable += all(r["worst_case"] >= 0 for r in evaluation.values())
            print(
                f"seed {seed}: {games:,} games, {seconds:.1f} s whole process"
                f"{judged}; " + "; ".join(seats),
                flush=True,
            )
    print(f"{unbeatable} of {len(seeds)} seeds: worst case 0 or better on both seats")
    print(f"{perfect} of {len(seeds)} seeds: that, and optimal share 1.0")


if __name__ == "__main__":
    main()
