"""Anyone's policy judged exactly: each convention detected (or forced), the batched fast
path equal to asking position by position, and user mistakes refused in one line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import tttlab
from tests.cli.helpers import ttt
from tttlab.agents import PerfectAgent
from tttlab.errors import AgentError, NotDeterministic
from tttlab.game import Geometry, Player, Position, state_space
from tttlab.io.adapters import UserAgent, is_user_spec, load_object, user_agent

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


def test_a_jax_batched_policy_is_judged_in_batches() -> None:
    jnp = pytest.importorskip("jax.numpy")
    calls: list[int] = []

    def policy(observations: Any, masks: Any) -> Any:
        calls.append(len(masks))
        return jnp.argmax(jnp.asarray(masks), axis=1)

    evaluation = tttlab.evaluate(policy, convention="batched")
    reference = tttlab.evaluate(batched_first)
    assert evaluation.to_dict() == reference.to_dict()
    space = state_space(G3)
    judged = [n for n in calls if n > 2]  # after detection: each seat's batch, twice
    assert sorted(judged) == sorted(
        2 * [int((~space.terminal & (space.to_move == s)).sum()) for s in (1, 2)]
    )


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


def test_a_policy_that_answers_differently_is_judged_as_sampled() -> None:
    turn = iter(range(10**9))

    def noisy(observation: Any, action_mask: npt.NDArray[np.int8]) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[next(turn) % len(legal)])  # each legal move in turn

    agent = user_agent(noisy, G3)
    assert isinstance(agent, UserAgent)
    with pytest.raises(NotDeterministic, match=r"asked \.\.\./\.\.\./\.\.\. twice"):
        agent.move_probabilities(Position.initial(G3))
    agent.sample_instead()
    probabilities = agent.move_probabilities(Position.initial(G3))
    assert sum(probabilities.values()) == pytest.approx(1.0)
    assert len(probabilities) > 1
    evaluation = tttlab.evaluate(noisy, board="2x3k2")
    assert evaluation.sampled
    assert all(seat["sampled"] for seat in evaluation.to_dict().values())


def _first_free_but(late: str, answers: list[int]) -> Any:
    """The first free cell, except at the position ``late``, where it answers each of
    ``answers`` in turn (a policy that a few probes would call deterministic)."""
    asked = iter(answers * 100)

    def policy(position: str) -> int:
        return next(asked) if position == late else position.index(".")

    return policy


LATE = "XOXOXO..."  # reached by first_free as X: the first free cell, 6, wins for X


@pytest.mark.parametrize("batched", [False, True], ids=["one-by-one", "batched"])
def test_user_code_is_asked_every_position_twice(batched: bool) -> None:
    """Deterministic everywhere but one late position: the exact judge finds it (not 16
    probes), judges from samples, and says so."""
    policy = _first_free_but(LATE, [6, 7])
    target: Any = policy
    if batched:

        def target(observations: Any, masks: Any) -> Any:
            boards = observations[..., 0] + 2 * observations[..., 1]  # mover's view
            out = []
            for board, mask in zip(boards.reshape(len(masks), -1), masks, strict=True):
                movers = "XO" if int(mask.sum()) % 2 else "OX"
                text = "".join("." if v == 0 else movers[int(v) - 1] for v in board)
                out.append(policy(text))
            return np.array(out)

    evaluation = tttlab.evaluate(target, seat="X")
    assert evaluation.sampled
    agent = user_agent(target, G3)
    assert isinstance(agent, UserAgent)
    with pytest.raises(NotDeterministic, match=r"XOX/OXO/... twice, it answered 6, then 7"):
        agent.policy_matrix(Player.X)
    assert "is not deterministic" in agent.established()


def test_a_proof_is_refused_for_code_that_answers_two_ways() -> None:
    policy = _first_free_but(LATE, [6, 7])
    with pytest.raises(AgentError, match=r"not deterministic: asked XOX/OXO/... twice.*no proof"):
        tttlab.evaluate(policy, seat="X", prove=True)
    steady = _first_free_but(LATE, [6])
    assert tttlab.evaluate(steady, seat="X", prove=True).X is not None
    agent = user_agent(steady, G3)
    assert isinstance(agent, UserAgent)
    tttlab.evaluate(agent, seat="X")
    assert agent.established().endswith("the same way both times")


class _Declares:
    """Someone's object with the agent protocol that declares itself deterministic but
    draws its move probabilities at random: it is asked twice, not believed."""

    name = "liar"
    deterministic = True

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def move_probabilities(self, position: Position) -> dict[int, float]:
        return {int(self.rng.choice(position.legal_moves)): 1.0}

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        return next(iter(self.move_probabilities(position)))

    def move_values(self, position: Position) -> None:
        return None


def test_an_agent_objects_declaration_is_not_believed() -> None:
    with pytest.raises(AgentError, match=r"liar is not deterministic.*no proof"):
        tttlab.evaluate(_Declares(), prove=True)
    assert tttlab.evaluate(_Declares(), board="2x2k2").sampled


def test_mcts_declares_it_is_not_deterministic() -> None:
    """Its evaluation-mode search is seeded, but its play is not: no proof, and the exact
    verdict says it judged a sample."""
    with pytest.raises(AgentError, match=r"mcts\(20\) is not deterministic"):
        tttlab.evaluate("mcts:20", board="2x2k2", prove=True)
    assert tttlab.evaluate("mcts:20", board="2x2k2").sampled
    assert not tttlab.evaluate("random", board="2x2k2").sampled


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


def test_an_illegal_move_and_an_exception_name_the_position() -> None:
    def occupied(position: str) -> int:
        return position.index("X") if "X" in position else 0

    with pytest.raises(AgentError, match=r"occupied played the illegal move \d at position"):
        tttlab.evaluate(occupied, convention="position")

    def broken(position: str) -> int:
        if position.count("X") > 1:
            raise KeyError("no such state")
        return position.index(".")

    wanted = r"raised KeyError: 'no such state' \(test_adapters.py line \d+\) at position"
    with pytest.raises(AgentError, match=wanted):
        tttlab.evaluate(broken)


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


def test_specs_name_user_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text("def f(position):\n    return position.index('.')\n")
    (tmp_path / "asks.py").write_text("input('name? ')\n")
    (tmp_path / "az.npz").write_text("")
    assert is_user_spec("mine.py:f")
    assert is_user_spec("package.module:policy")
    assert not is_user_spec("az.npz:200")
    assert not is_user_spec("mcts:200")
    assert callable(load_object("mine.py:f"))
    with pytest.raises(AgentError, match=r"asks\.py calls input\(\) when imported"):
        load_object("asks.py:f")
    with pytest.raises(AgentError, match=r"mine\.py has no 'g'"):
        load_object("mine.py:g")
    with pytest.raises(AgentError, match="cannot import no_such_module_here"):
        load_object("no_such_module_here:f")


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


def test_a_package_module_spec_resolves_the_same_under_the_console_script(tmp_path: Path) -> None:
    """``package.module:NAME`` from the current folder failed under ``ttt`` (the console
    script's path starts at its bin folder) and worked under ``python -m tttlab``."""
    (tmp_path / "players").mkdir()
    (tmp_path / "players" / "__init__.py").write_text("")
    (tmp_path / "players" / "first.py").write_text(
        "def policy(position):\n    return position.index('.')\n"
    )
    console = Path(sys.executable).with_name("ttt")
    for command in ([str(console)], [sys.executable, "-m", "tttlab"]):
        done = subprocess.run(
            [*command, "eval", "players.first:policy", "--json"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "players.first:policy: f(position) -> cell" in done.stderr
        assert json.loads(done.stdout)["X"]["decision_positions"] == 74
