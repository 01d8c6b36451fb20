"""``ttt check`` on the Q-learning text's Agent (seed 003): the faithful Board and Agent pass
every check of both shapes; each classic bug fails on the check that names the method holding
it, with its counterexample (the last issue's too: moves that never explore, episodes that do
not start from an empty board); the agent is built as its own constructor takes its values,
or the report says in one problem why it cannot be; and what the box reports is judged without
trusting it (the episode a legal game, every entry of ``q`` recomputed, the statistical tests'
verdicts)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.usercode.helpers import failing_here, load_module, passing, write_edited
from tttlab.usercode.boxside.loading import guarded
from tttlab.usercode.boxside.shapes.q_agent import QAgentChild, digits, open_cells, values
from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises import EXERCISES, Case
from tttlab.usercode.exercises.q_agent import CALLS
from tttlab.usercode.grading import check_path

CORPUS = Path(__file__).parent / "corpus"
FAITHFUL = CORPUS / "q_agent" / "qagent.py"
SOURCE = FAITHFUL.read_text()
SPEC = EXERCISES["q-agent"]


def _copy(tmp_path: Path, changes: list[tuple[str, str]], everywhere: bool = False) -> Path:
    """The faithful file with each ``old`` replaced (found once, unless ``everywhere``)."""
    return write_edited(SOURCE, changes, tmp_path / "qagent.py", once=not everywhere)


def _answer(module: ModuleType, function: str, case: Case) -> list[Any]:
    """The box's answer to one case, made in this process (no box: for judging by hand)."""

    def run(target: Any, *args: Any) -> list[Any]:
        outcome: list[Any] = guarded(target, args)
        return outcome

    return QAgentChild(module).call(function, SPEC.payload(function, case), run)


def test_the_faithful_board_and_agent_pass_every_check_of_both_shapes() -> None:
    assert passing(FAITHFUL, "board+q-agent") == {
        "Board": 5478,
        "play": 16167,
        "add_state": 5478,
        "best_action": 4520,
        "choose_action": 4520 + 16,
        "qlearning": 45,
        "sarsa": 45,
    }


_SARSA_TARGET = """                if self.State.winner is None:
                    next_action = self.choose_action(player)
                    target = self.State.reward + self.discount * self.q[state][next_action]
                else:
                    target = self.State.reward
"""
_ADD_STATE = """    def add_state(self, state, open):
        self.states.add(state)
        self.q[state] = {}
        for action in open:
            self.q[state][action] = 0.0"""

#: Each classic bug: the check that must fail, the changes to the faithful source, and words
#: of the counterexample's ``got``.
BUGS: dict[str, tuple[str, list[tuple[str, str]], str]] = {
    "the greedy move the worst one": (
        "best_action",
        [
            ("best = max(values.values())", "best = MIN(values.values())"),
            ("best = min(values.values())", "best = max(values.values())"),
            ("best = MIN(", "best = min("),
        ],
        "(value -0.813182)",
    ),
    "O maximising": (
        "best_action",
        [("best = min(values.values())", "best = max(values.values())")],
        "(value 0.5)",
    ),
    "ε reversed": (
        "choose_action",
        [("if random.random() < self.epsilon:", "if random.random() > self.epsilon:")],
        "(value ",
    ),
    "O maximising in the training loop": (
        "qlearning",
        [
            (
                "                action = self.choose_action(player)\n",
                "                action = self.choose_action(True)\n",
            )
        ],
        "is not greedy at epsilon 0",
    ),
    "no discount": (
        "qlearning",
        [("self.State.reward + self.discount * future", "self.State.reward + future")],
        "target = 0.9 * min(q['000000100'].values())",
    ),
    "alpha * expected - q": (
        "qlearning",
        [
            (
                "+= self.alpha * (expected - self.q[previous][action])",
                "+= self.alpha * expected - self.q[previous][action]",
            )
        ],
        "move 1 (X at 6) of the moves 6, 3, 0, 4, 5, 1, 2, 8, 7",
    ),
    "bootstrapping on the mover's own best": (
        "qlearning",
        [
            (
                "self.q[state][self.best_action(player)]",
                "self.q[state][self.best_action(not player)]",
            )
        ],
        "is 0.776573, expected 0.0439134",
    ),
    "SARSA that is Q-learning": (
        "sarsa",
        [("self.q[state][next_action]", "self.q[state][self.best_action(player)]")],
        "(1: the move played next)",
    ),
    "SARSA that bootstraps at the end": (
        "sarsa",
        [
            (
                _SARSA_TARGET,
                "                next_action = self.choose_action(player)\n"
                "                target = self.State.reward + self.discount"
                " * self.q[state][next_action]\n",
            )
        ],
        "target = the reward -1 (the game is over)",
    ),
    # the last issue's two bugs that passed: moves that never explore, episodes not reset
    "SARSA whose next action is best_action's": (
        "sarsa",
        [("next_action = self.choose_action(player)", "next_action = self.best_action(player)")],
        "the moves do not follow the epsilon-greedy shares at epsilon 0.2",
    ),
    "Q-learning that never resets its Board": (
        "qlearning",
        [
            (
                "            self.State = Board()\n            player = True\n            while",
                "            player = True\n            while",
            )
        ],
        "3 episodes asked for, 1 played",
    ),
    "Q-learning that plays best_action": (
        "qlearning",
        [
            (
                "                action = self.choose_action(player)\n",
                "                action = self.best_action(player)\n",
            )
        ],
        "likeliest departure is much too greedy",
    ),
    "SARSA whose first action is best_action's": (
        "sarsa",
        [
            (
                "            player = True\n            action = self.choose_action(player)",
                "            player = True\n            action = self.best_action(player)",
            )
        ],
        "likeliest departure is the first move of each episode greedy",
    ),
    "add_state sharing a default dict": (
        "add_state",
        [
            (
                _ADD_STATE,
                "    def add_state(self, state, open, row={}):\n"
                "        self.states.add(state)\n"
                "        row.clear()\n"
                "        row.update(dict.fromkeys(open, 0.0))\n"
                "        self.q[state] = row",
            )
        ],
        "after add_state('100000000')",
    ),
    "add_state sharing one row of the agent's": (
        "add_state",
        [
            (
                "        self.states = set()\n",
                "        self.states = set()\n        self.row = {}\n",
            ),
            (
                _ADD_STATE,
                "    def add_state(self, state, open):\n"
                "        self.states.add(state)\n"
                "        self.row.update(dict.fromkeys(open, 0.0))\n"
                "        self.q[state] = self.row",
            ),
        ],
        "q['100000000'] is {0: 0.0, 1: 0.0",  # the first row, kept
    ),
}


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_each_classic_bug_fails_on_the_check_of_its_method(bug: str, tmp_path: Path) -> None:
    check, changes, words = BUGS[bug]
    result, example = failing_here(_copy(tmp_path, changes), "q-agent", check, words)
    assert result.name == check
    assert result.wrong > 0
    assert example.got in example.repro


def test_a_learning_counterexample_draws_the_board_of_the_wrong_entry(tmp_path: Path) -> None:
    check, changes, _ = BUGS["SARSA that bootstraps at the end"]
    example = check_path(_copy(tmp_path, changes), only=(check,)).checks[check].example
    assert example is not None
    assert example.board == "XOX/.OO/X.X"  # before O's last move, at cell 7
    assert "q['121022101'][7] is" in example.got
    assert "start(500000, 0.0); random.seed(500000); np.random.seed(500000); agent.sarsa(1)" in (
        example.repro
    )
    assert example.call.startswith("agent = Agent(0.3, 0.9, 0.5); ")


def test_variants_the_text_allows_pass(tmp_path: Path) -> None:
    """Finished states left out of the table, new states found through ``q`` rather than
    ``states``, numpy's random numbers, and the student's own names (``--name``)."""
    source = _copy(
        tmp_path,
        [
            ("import random\n", "import random\n\nimport numpy as np\n"),
            ("return random.choice(self.State.open)", "return np.random.choice(self.State.open)"),
            ("self.q", "self.Q"),
            ("if state not in self.states:", "if state not in self.Q and not self.State.winner:"),
        ],
        everywhere=True,
    )
    report = check_path(source, only=("qlearning", "sarsa", "choose_action"), names={"q": "Q"})
    assert report.ok, report.as_json()


def test_the_agents_own_containers_are_kept(tmp_path: Path) -> None:
    """``states`` kept as a list and ``q`` as a defaultdict: the box gives the agent its
    tables in the containers its own code made, so its own methods work on them (the
    review's reproduction: a set put in place of the list failed as the student's)."""
    source = _copy(
        tmp_path,
        [
            ("import random\n", "import collections\nimport random\n"),
            ("self.states = set()", "self.states = []"),
            ("self.states.add(state)", "self.states.append(state)"),
            ("self.q = {}", "self.q = collections.defaultdict(dict)"),
        ],
    )
    report = check_path(source, exercise="q-agent", only=("add_state", "qlearning", "sarsa"))
    assert report.ok, report.as_json()


@pytest.mark.parametrize(
    ("change", "check", "words"),
    [
        (
            ("self.State.play(action, self.players[player])", "self.State.play(action, '1')"),
            "qlearning",
            "move 2 was played as '1'; '2' moves there",
        ),
        (
            (
                "self.q[previous][action] += self.alpha * (expected - self.q[previous][action])",
                "self.q = None\n                return",
            ),
            "qlearning",
            "q: None",
        ),
        (
            ("target = self.State.reward\n", "target = float('nan')\n"),
            "sarsa",
            "is nan, expected",
        ),
        (
            (
                "self.add_state(state, self.State.open)",
                "self.q[state] = dict.fromkeys(self.State.open, 0.0)",
            ),
            "qlearning",
            "was reached but not added to states",
        ),
        (  # a state no game reaches (three X, no O): no board to draw, never the grader's error
            (
                "            self.State = Board()\n            player = True\n",
                "            self.State = Board()\n            player = True\n"
                "            self.q['111000000'] = {3: 0.0}\n",
            ),
            "qlearning",
            "q['111000000'][3] was added as 0.0, though the moves",
        ),
        (
            ("self.q[state] = {}\n", "self.q[state] = {9: 0.0}\n"),
            "add_state",
            "{0: 0.0, 1: 0.0, 2: 0.0, 3: 0.0, 4: 0.0, 5: 0.0, 6: 0.0, 7: 0.0, 8: 0.0, 9: 0.0}",
        ),
    ],
)
def test_wrong_episodes_and_junk_are_named_without_crashing(
    change: tuple[str, str], check: str, words: str, tmp_path: Path
) -> None:
    failing_here(_copy(tmp_path, [change], everywhere=True), "q-agent", check, words)


def test_the_agent_is_built_as_its_constructor_says_or_one_problem_says_why(
    tmp_path: Path,
) -> None:
    """The text's constructor gets no note; another order of other names is matched by
    name and noted; one that cannot be called is one problem, said before any call."""
    text = 'def __init__(self, epsilon, discount, alpha, algorithm="qlearning"):'
    assert QAgentChild(load_module(FAITHFUL, "qagent_built_0")).prepare() is None
    keywords = _copy(
        tmp_path,
        [
            (text, "def __init__(self, *, learning_rate=0.5, gamma=0.9, epsilon=0.1):"),
            ("self.discount = discount", "self.discount = gamma"),
            ("self.alpha = alpha", "self.alpha = learning_rate"),
            ("self.algorithm = algorithm", "self.algorithm = 'qlearning'"),
        ],
    )
    prepared = QAgentChild(load_module(keywords, "qagent_built_1")).prepare()
    assert prepared == {
        "notes": [
            "Agent built as Agent(learning_rate=0.5, gamma=0.9, epsilon=0.1): its parameters "
            "matched by name to epsilon 0.1, discount 0.9 and alpha 0.5"
        ]
    }
    (tmp_path / "board").mkdir()
    needy = write_edited(
        SOURCE,
        [(text, 'def __init__(self, board, epsilon, discount, alpha, algorithm="qlearning"):')],
        tmp_path / "board" / "qagent.py",
    )
    prepared = QAgentChild(load_module(needy, "qagent_built_2")).prepare()
    assert prepared is not None
    assert set(prepared) == {"problem"}
    assert prepared["problem"].startswith("Agent(board, epsilon, discount, alpha, ")
    assert " cannot be built: board needs a default" in prepared["problem"]


def test_the_grader_recomputes_each_answer(tmp_path: Path) -> None:
    """Answers made in this process from the faithful agent are right; the same answers
    with one entry, one move or one count changed are not."""
    module = load_module(FAITHFUL, "qagent_faithful")
    truth = exercise_truth()
    cases = SPEC.cases(truth)
    ok = ["v"]
    for function in ("qlearning", "sarsa"):
        case = cases[function][5]
        outcome = _answer(module, function, case)
        assert outcome[0] == "v"
        assert SPEC.well_formed(function, outcome[1])
        assert SPEC.right(function, case, outcome, truth)
        plays, changed, *rest = outcome[1]
        state, action, value = changed[0]
        nudged = [[state, action, value + 1e-6], *changed[1:]]
        assert not SPEC.right(function, case, [*ok, [plays, nudged, *rest]], truth)
        assert not SPEC.right(function, case, [*ok, [plays, changed[1:], *rest]], truth)
        swapped = [plays[1], plays[0], *plays[2:]]
        assert not SPEC.right(function, case, [*ok, [swapped, changed, *rest]], truth)
    spread = [c for c in cases["choose_action"] if c.arg[3]]
    assert len(spread) == 16
    for case in spread[:4]:
        outcome = _answer(module, "choose_action", case)
        assert SPEC.right("choose_action", case, outcome, truth)
        counts, other = outcome[1]
        greedy = max(range(9), key=lambda c: counts[c])
        always = [CALLS if c == greedy else 0 for c in range(9)]
        assert not SPEC.right("choose_action", case, [*ok, [always, other]], truth)
    case = cases["best_action"][1]
    outcome = _answer(module, "best_action", case)
    assert SPEC.right("best_action", case, outcome, truth)
    row = values(case.arg[0], open_cells(digits(case.board)), True)
    worst = [c for c, v in row.items() if v == max(row.values())]  # O's move: the largest is worst
    assert not SPEC.right("best_action", case, [*ok, worst[0]], truth)
    case = cases["add_state"][0]
    outcome = _answer(module, "add_state", case)
    assert SPEC.right("add_state", case, outcome, truth)
    *rows, shared = outcome[1]
    assert shared is False
    assert not SPEC.right("add_state", case, [*ok, [*rows, True]], truth)
    assert "are one dict" in SPEC.shown("add_state", [*ok, [*rows, True]], case, truth)
