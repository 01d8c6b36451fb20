"""The Stable-Baselines3 integration: the judge it runs, and its one-line refusal when the
library is not installed (the suite does not install PyTorch; experiments/ppo_sb3.py runs
the callback with a real MaskablePPO)."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

import tttlab
from tttlab.errors import TttlabError
from tttlab.integrations.sb3 import ExactJudge, exact_eval_callback


class Model:
    """predict() as Stable-Baselines3 models have it: actions and a recurrent state."""

    def predict(
        self, observation: Any, action_masks: Any = None, deterministic: bool = False
    ) -> tuple[Any, None]:
        return np.argmax(action_masks, axis=-1), None


def test_the_judge_records_the_exact_evaluation_at_each_point() -> None:
    judge = ExactJudge(board="3x3k3", seat="X")
    point = judge(Model(), steps=2048)
    assert judge.records == [point]
    assert point["steps"] == 2048
    assert list(point) == ["steps", "X"]
    assert point["X"] == tttlab.evaluate(Model(), seat="X", convention="sb3").to_dict()["X"]


@pytest.mark.skipif(
    importlib.util.find_spec("stable_baselines3") is not None, reason="sb3 is installed"
)
def test_the_callback_says_what_to_install() -> None:
    with pytest.raises(TttlabError, match=r"pip install 'tttlab\[sb3\]'"):
        exact_eval_callback(every=100)
