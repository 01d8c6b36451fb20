"""The API's results (:mod:`tttlab.api.results`): typed dataclasses that copy, pickle and
compare."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import tttlab


def test_results_are_dataclasses_that_copy_pickle_and_compare() -> None:
    solved = tttlab.solve("3x3")
    assert dataclasses.is_dataclass(solved)
    assert copy.deepcopy(solved) == solved
    assert pickle.loads(pickle.dumps(solved)) == solved
    assert solved.positions == 5478
    assert solved.nodes is None  # a table solve has no search fields
    searched = tttlab.solve("4x4k4", method="search")
    assert searched.positions is None
    assert searched.nodes is not None
    assert pickle.loads(pickle.dumps(searched)).to_dict() == searched.to_dict()
    evaluation = tttlab.evaluate("perfect")
    assert pickle.loads(pickle.dumps(evaluation)) == evaluation
    result = tttlab.arena(["random", "perfect"], games=4, seed=1)
    assert copy.deepcopy(result).to_dict() == result.to_dict()
    solved_mdp = tttlab.mdp()
    again = pickle.loads(pickle.dumps(solved_mdp))
    assert again.to_dict() == solved_mdp.to_dict()
    assert again.value == solved_mdp.value
