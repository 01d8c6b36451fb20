"""Anyone's policy under one of the conventions: each detected (or forced) and playing the
same policy, and code that follows none refused in one line, with the user's own error."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import tttlab
from tests.cli.helpers import ttt
from tttlab.agents import PerfectAgent
from tttlab.errors import AgentError
from tttlab.game import Geometry, Player, Position, state_space
from tttlab.unboxed import UserAgent, load_object, user_agent

G3 = Geometry(3, 3, 3)
CORPUS = Path(__file__).parents[1] / "usercode" / "corpus"


def first_free(position: str) -> int:
    return position.index(".")


def first_free_position(position: Position) -> int:
    return position.legal_moves[0]


def gym_first(observation: npt.NDArray[np.int8], action_mask: npt.NDArray[np.int8]) -> int:
    return int(np.flatnonzero(action_mask)[0])


def batched_first(observations: Any, masks: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    return np.argmax(masks, axis=1)


def exercise_first(board: list[list[str | None]]) -> tuple[int, int]:
    return next((i, j) for i, row in enumerate(board) for j, c in enumerate(row) if c is None)


class Model:
    """Stable-Baselines3's predict: actions and a recurrent state."""

    def predict(
        self, observation: Any, action_masks: Any = None, deterministic: bool = False
    ) -> tuple[npt.NDArray[np.int64], None]:
        return np.argmax(action_masks, axis=-1), None


@pytest.mark.parametrize(
    ("policy", "convention"),
    [
        (first_free, "position"),
        (first_free_position, "position"),
        (gym_first, "gym"),
        (batched_first, "batched"),
        (exercise_first, "exercise"),
        (Model(), "sb3"),
    ],
    ids=["position-string", "position-object", "gym", "batched", "exercise", "sb3"],
)
def test_each_convention_is_detected_and_plays_the_same_policy(
    policy: Any, convention: str
) -> None:
    agent = user_agent(policy, G3)
    assert isinstance(agent, UserAgent)
    assert agent.convention == convention
    assert agent.deterministic
    space = state_space(G3)
    for side in (Player.X, Player.O):
        table = agent.policy_matrix(side)
        rows = np.flatnonzero(~space.terminal & (space.to_move == int(side)))
        first = np.argmax(space.next[rows] >= 0, axis=1)  # the first empty cell, by hand
        assert np.array_equal(np.argmax(table[rows], axis=1), first)
        assert np.all(table[rows].sum(axis=1) == 1.0)


def test_the_exercise_minimax_is_judged_exactly_unbeatable() -> None:
    module = load_object(f"{CORPUS / 'memo_minimax.py'}:minimax")
    evaluation = tttlab.evaluate(module)
    perfect = tttlab.evaluate(PerfectAgent(G3))
    assert evaluation.unbeatable
    assert evaluation.X is not None
    assert perfect.X is not None
    assert evaluation.X.worst_case == perfect.X.worst_case == 0
    assert evaluation.X.optimal_share == 1.0
    assert not evaluation.sampled


def test_a_forced_convention_is_used() -> None:
    agent = user_agent(batched_first, G3, convention="batched")
    assert isinstance(agent, UserAgent)
    assert agent.convention == "batched"
    with pytest.raises(AgentError, match="gym_first returned int64 of shape"):
        user_agent(gym_first, G3, convention="batched")
    with pytest.raises(AgentError, match="batched_first raised AxisError"):
        user_agent(batched_first, G3, convention="gym")


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (lambda a, b, c: 0, "follows none of the conventions"),
        (lambda position: 99, "follows none of the conventions"),
        (3, "not callable"),
    ],
)
def test_what_is_no_policy_is_refused_in_one_line(policy: Any, message: str) -> None:
    with pytest.raises(AgentError, match=message) as caught:
        user_agent(policy, G3)
    assert "\n" not in str(caught.value)


def test_the_users_own_error_is_shown_with_its_line() -> None:
    """A NameError in the user's function was reported as "follows none of the
    conventions"; a ValueError in a batched policy surfaced as tttlab's internal error."""

    def typo(board: object) -> tuple[int, int]:
        return undefined_helper(board)  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(AgentError) as info:
        user_agent(typo, G3)
    message = str(info.value)
    assert "follows none of the conventions" in message
    assert "it raised NameError: name 'undefined_helper' is not defined" in message
    assert re.search(r"\(test_adapters.py line \d+\)", message), message

    def batched(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if len(observations) > 2:  # fine when probed, wrong when judged
            raise ValueError("too many")
        return np.argmax(masks, axis=1)

    with pytest.raises(AgentError, match=r"raised ValueError: too many \(test_adapters.py"):
        tttlab.evaluate(batched)


def test_ttt_eval_says_the_convention_and_judges_a_file(tmp_path: Path) -> None:
    (tmp_path / "course_agent.py").write_text(
        "import numpy as np\n\n"
        "def agent(observation, action_mask):\n"
        "    return int(np.flatnonzero(action_mask)[-1])\n"
    )
    done = ttt("eval", "course_agent.py:agent", "--json", cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "ttt: course_agent.py:agent: f(observation, action_mask) -> action; each position is "
        "asked twice\nttt: course_agent.py:agent answered each of the 4,520 positions it was "
        "asked twice the same way both times\n"
    )
    report = json.loads(done.stdout)
    assert report["X"]["worst_case"] == -1
    refused = ttt("eval", "course_agent.py:agent", "--convention", "batched", cwd=str(tmp_path))
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1
    assert "course_agent.py:agent returned" in refused.stderr
