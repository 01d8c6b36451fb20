"""`ttt eval --prove` against the table's judging on 4×4 k=4, seat by seat, with times.

The test suite checks the proof against the table on 3×3 and 3×4 k=3 for built-in, table and
network agents (`tests/evaluation/test_worstcase.py`); on 4×4 k=4 the table's side takes about
half a minute per agent, so the same comparison runs here::

    .venv/bin/python benchmarks/prove_crosscheck.py                   # perfect, a Q table, a DQN
    .venv/bin/python benchmarks/prove_crosscheck.py az0.npz az1.npz   # and agent files

It exits 1 if the two disagree anywhere (worst case, decisions reached, results against
random).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

import numpy as np
import reference_course  # this folder's: the reference speed

from tttlab.agents import Agent, make_agent
from tttlab.agents.learned import LearnedAgent
from tttlab.agents.network import Architecture, NetworkAgent
from tttlab.evaluation import evaluate_seats, prove_worst_case
from tttlab.game import Geometry, Player, state_space, table_layout
from tttlab.io import load_agent_file
from tttlab.limits import PROOF_POSITIONS


def _agents(geometry: Geometry, files: list[str]) -> list[Agent]:
    rows = table_layout(state_space(geometry), symmetric=False).size
    q = np.random.default_rng(0).integers(-1, 2, size=(1, rows, geometry.cells)).astype(float)
    architecture = Architecture(geometry.cells, (64,), "q")
    rng = np.random.default_rng(1)
    params = {n: rng.normal(size=s).astype(np.float32) for n, s in architecture.shapes().items()}
    agents: list[Agent] = [
        make_agent("perfect", geometry),
        LearnedAgent("q", geometry, (Player.X, Player.O), {"Q": q}, label="random Q table"),
        NetworkAgent("dqn", geometry, architecture, params, label="untrained dqn"),
    ]
    return agents + [load_agent_file(path) for path in files]


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="agent files for 4x4k4")
    args = parser.parse_args()
    geometry = Geometry(4, 4, 4)
    wrong = 0
    for agent in _agents(geometry, args.files):
        started = time.perf_counter()
        table = evaluate_seats(agent, geometry)
        table_seconds = time.perf_counter() - started
        for side in (Player.X, Player.O):
            # walked to the end even after a loss, so that every figure can be compared
            proof = prove_worst_case(agent, geometry, side, after_loss=PROOF_POSITIONS)
            judged = table[side.name]
            same = (
                proof.worst_case == judged.worst_case
                and proof.decision_positions == judged.decision_positions
                and proof.complete
                and abs((proof.loss or 0) - judged.loss) < 1e-12
            )
            wrong += not same
            print(
                f"{agent.name:>16} as {side.name}: table {judged.worst_case:+d} "
                f"({table_seconds:.1f} s, both seats), proof {proof.worst_case:+d} over "
                f"{proof.positions:,} positions in {proof.seconds:.2f} s"
                f"{'' if same else '  DISAGREE'}",
                flush=True,
            )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'all agree' if not wrong else f'{wrong} disagreements'}; peak memory {peak:.0f} MiB")
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
