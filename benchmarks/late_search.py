"""AlphaZero self-play with more search late in training.

    .venv/bin/python benchmarks/late_search.py az.npz --seed 0 --minutes 29.8 --early 20 \\
        --late-simulations 64

An experiment for the 5×5 k=4 O seat (docs/guides/networks.md), not an option of ``ttt
train``: it trains ``ttt train alphazero``'s defaults for ``--early`` minutes of wall time
(the compilation included), then goes on from the same state (network, optimiser, replay,
key) with ``--late-simulations`` simulations per self-play move until ``--minutes`` have
passed, and saves the agent file (whose header names the defaults, 32 simulations). The
switch costs one more compilation. ``ttt eval FILE --prove`` and
``benchmarks/search_ladder.py`` judge the file.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tttlab.errors import TttlabError
from tttlab.game import Geometry
from tttlab.neural.alphazero import AlphaZeroConfig, AlphaZeroTrainer
from tttlab.training.runs import start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the agent file to write")
    parser.add_argument("--board", default="5x5k4")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--minutes", type=float, default=29.8, help="wall time of the training")
    parser.add_argument("--early", type=float, default=20.0, help="minutes with the defaults")
    parser.add_argument("--late-simulations", type=int, default=64)
    args = parser.parse_args()
    try:
        if not 0 < args.early < args.minutes or args.late_simulations < 1:
            raise TttlabError("--early runs between 0 and --minutes; --late-simulations from 1")
        train(args)
    except TttlabError as error:  # a bad board or option: one line
        raise SystemExit(f"late_search: {error}") from None


def train(args: argparse.Namespace) -> None:
    geometry = Geometry.parse(args.board)
    run = start("alphazero", geometry, episodes=100_000_000, seed=args.seed)
    trainer = run.trainer  # type: ignore[attr-defined]
    began = time.perf_counter()
    while time.perf_counter() - began < args.early * 60:
        trainer.run(1)
    early = trainer.done
    config = trainer.config
    header = dict(config.header(), simulations=args.late_simulations)
    # A new trainer, given the state so far: the jitted iteration is cached by its trainer,
    # so the old one would keep its search (the same state goes on, key included). Its
    # config is built as a resumed run's is, from the header.
    late = AlphaZeroTrainer(
        AlphaZeroConfig.from_header(geometry, config.episodes, config.seed, header)
    )
    late.restore(trainer.checkpoint_arrays(), trainer.iteration)
    run.trainer = trainer = late  # type: ignore[attr-defined]
    print(f"{early:,} game slots with {config.simulations} simulations", flush=True)
    while time.perf_counter() - began < args.minutes * 60:
        trainer.run(1)
    seconds = time.perf_counter() - began
    slots = trainer.done - early
    print(f"{slots:,} game slots with {args.late_simulations}, {seconds:.0f} s", flush=True)
    run.save(args.out)


if __name__ == "__main__":
    main()
