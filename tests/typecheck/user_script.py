"""A user's script against the API, type-checked by ``mypy --strict`` (``make typecheck``
lists this file) and run by ``tests/test_api.py``.

``assert_type`` fails the type check if the API's types drift: if ``tttlab.train`` became
``Any``, or ``tttlab.solve`` a module where a subpackage import is in sight (it used to).
"""

from __future__ import annotations

from pathlib import Path
from typing import assert_type

import tttlab
import tttlab.evaluation.exact  # subpackage imports in sight change nothing
import tttlab.solvers.table
from tttlab.api import Evaluation, Proof, SolveResult, TrainedAgent, TrainedNetwork


def main(folder: Path) -> None:
    solved = tttlab.solve("3x3")
    assert_type(solved, SolveResult)
    assert solved.value == 0

    agent = tttlab.train("q", episodes=2_000, seed=0, progress=False)
    assert_type(agent, TrainedAgent)
    network = tttlab.train("dqn", episodes=256, seed=0, progress=False, batch=64, updates=2)
    assert_type(network, TrainedNetwork)

    evaluation = tttlab.evaluate(agent)
    assert_type(evaluation, Evaluation)
    assert evaluation.X is not None
    print(evaluation.X.optimal_share, network.evaluation().unbeatable)
    proof = tttlab.evaluate(agent, prove=True)
    assert_type(proof, Proof)
    assert proof.O is not None
    print(proof.O.positions, proof.O.line, proof.unbeatable)

    path = agent.save(folder / "q.npz")
    again = tttlab.load(path)
    assert isinstance(again, TrainedAgent)
    print(tttlab.arena([again, "random"], games=2).to_dict()["board"])

    try:
        tttlab.solve("0x3")
    except tttlab.TttlabError as error:
        print("refused:", error)


if __name__ == "__main__":
    import sys

    main(Path(sys.argv[1]))
