"""Result: docs/guides/networks.md, section '`ttt train alphazero`'.

Prove AlphaZero networks raw and with N simulations of play-time search, seat by seat.

    .venv/bin/python experiments/search_ladder.py DIR/alphazero0.npz DIR/alphazero1.npz ...
    .venv/bin/python experiments/search_ladder.py FILES --considered 16 --simulations 4,8,16

For each file and each N (default: the raw network, then 1, 2, 4, …, 64), `ttt eval FILE:N
--prove` in one process: the proved worst case of each seat, the plies of the shortest line
that beats it, the positions walked and the seconds. ``--considered M`` fixes the moves the
search considers at the root to M for every N, instead of play time's N // 2
(`tttlab.agents.gumbel.play_considered`), to compare the two. The last line says whether
more simulations were ever worse than fewer (a seat beaten at N but not at some smaller N).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import tttlab.agents.network as network
from tttlab.evaluation.worstcase import prove_worst_case
from tttlab.game import Player
from tttlab.io import load_agent_file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--simulations", default="0,1,2,4,8,16,32,64", help="0: the raw network")
    parser.add_argument("--considered", type=int, default=None, help="fix the moves considered")
    args = parser.parse_args()
    if args.considered is not None:
        fixed = args.considered
        network.play_considered = lambda simulations: fixed  # type: ignore[assignment]
    ladder = [int(n) for n in args.simulations.split(",")]
    worse = []
    for path in args.files:
        raw = load_agent_file(path)
        held_below = {side: False for side in (Player.X, Player.O)}
        for n in ladder:
            agent = raw.with_search(n) if n else raw
            cells = []
            started = time.perf_counter()
            for side in (Player.X, Player.O):
                report = prove_worst_case(agent, raw.geometry, side)
                plies = f" in {len(report.line)} plies" if report.line else ""
                verdict = "unbeatable" if report.unbeatable else f"beaten{plies}"
                cells.append(f"{side.name} {verdict} ({report.positions:,} positions)")
                if not report.unbeatable and held_below[side]:
                    worse.append(f"{path.name}:{n} as {side.name}")
                held_below[side] |= report.unbeatable
            seconds = time.perf_counter() - started
            print(f"{path.name} {n or 'raw'}: {'; '.join(cells)}; {seconds:.1f} s", flush=True)
    print("more search worse than less: " + (", ".join(worse) if worse else "never"))
    raise SystemExit(1 if worse else 0)


if __name__ == "__main__":
    main()
