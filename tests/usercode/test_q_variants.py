"""Honest variants of the Q-learning text's Board and Agent: each is right, written otherwise
than the text in a way the text allows (another constructor, other containers, marks in another
form, a finished state added with an empty row, numpy's random numbers, a Board with more
methods, SARSA choosing ahead...). Each passes the checks its difference touches, judged in
this process, and two pass in the real box; each adaptation the check makes for one is named
in a note, and the text's own way gets none.

Each variant is the faithful file (``corpus/q_agent/qagent.py``) with the student's changes
made to it (:func:`~tests.usercode.helpers.edited`: each must apply, so an edit of the faithful
file cannot silently turn a variant into it); a method the student wrote anew replaces the
faithful one whole (:func:`faithful`)."""

from __future__ import annotations

import ast
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from tests.usercode.helpers import judged_here, load_module, write_edited
from tttlab.usercode.boxside.loading import guarded
from tttlab.usercode.boxside.shapes.q_agent import QAgentChild
from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises.q_agent import QAgentExercise
from tttlab.usercode.grading import check_path

FAITHFUL = (Path(__file__).parent / "corpus" / "q_agent" / "qagent.py").read_text()
SPEC = QAgentExercise()
_LOADED = itertools.count()
Changes = tuple[tuple[str, str], ...]


def faithful(method: str) -> str:
    """The whole of ``method`` (``"Agent.sarsa"``) in the faithful file, as its lines stand."""
    cls, name = method.split(".")
    tree = ast.parse(FAITHFUL)
    (found,) = (
        f
        for c in tree.body
        if isinstance(c, ast.ClassDef) and c.name == cls
        for f in c.body
        if isinstance(f, ast.FunctionDef) and f.name == name
    )
    assert found.end_lineno is not None
    return "".join(FAITHFUL.splitlines(keepends=True)[found.lineno - 1 : found.end_lineno])


#: The faithful constructor's settings, which a student may keep under other names.
SETTINGS = (
    "        self.epsilon = epsilon\n        self.discount = discount\n        self.alpha = alpha\n"
)
FROM_DEFAULTDICT = "import random\nfrom collections import defaultdict\n"

#: Tic-tac-toe learning where the Board has more than the text asks for (reset, copy, a
#: drawing, the legal moves as a property) and the agent resets its one Board between
#: episodes instead of making a new one.
BOARD_EXTRAS = r"""
    def __repr__(self):
        return "Board(" + repr(self.state) + ")"

    def __str__(self):
        symbols = {"0": ".", "1": "X", "2": "O"}
        rows = [self.state[r : r + 3] for r in (0, 3, 6)]
        return "\n".join("".join(symbols[c] for c in row) for row in rows)

    @property
    def legal_moves(self):
        return list(self.open)

    def copy(self):
        return copy.deepcopy(self)

    def is_over(self):
        return self.winner is not None

"""
ONE_BOARD = """\
    def episode(self, sarsa):
        self.State.reset()
        player = True
        action = self.choose_action(player)
        while not self.State.is_over():
            state = self.State.state
            after = self.move(action, player)
            player = not player
            if self.State.is_over():
                target = self.State.reward
            else:
                greedy = self.best_action(player)
                following = self.choose_action(player) if sarsa else None
                look = following if sarsa else greedy
                target = self.State.reward + self.discount * self.q[after][look]
            self.q[state][action] += self.alpha * (target - self.q[state][action])
            if not self.State.is_over():
                action = following if sarsa else self.choose_action(player)

    def qlearning(self, num_episodes):
        for _ in range(num_episodes):
            self.episode(sarsa=False)

    def sarsa(self, num_episodes):
        for _ in range(num_episodes):
            self.episode(sarsa=True)
"""

#: Q-learning and SARSA written around a step function that returns the next state, the
#: reward and whether the game is done. Q-learning reads the best value of the next row
#: directly (the largest when X moves next, the smallest when O does); SARSA picks its next
#: action ahead, as soon as it sees the next state.
STEP_QLEARNING = """\
    def qlearning(self, num_episodes):
        for _ in range(num_episodes):
            self.State = Board()
            player, done = True, False
            while not done:
                state = self.State.state
                action = self.choose_action(player)
                after, reward, done = self.step(action, player)
                player = not player
                if done:
                    target = reward
                else:
                    values = self.q[after].values()
                    target = reward + self.discount * (max(values) if player else min(values))
                self.q[state][action] += self.alpha * (target - self.q[state][action])
"""
STEP_SARSA = """\
    def sarsa(self, num_episodes):
        for _ in range(num_episodes):
            self.State = Board()
            player = True
            state, action = self.State.state, self.choose_action(player)
            while True:
                after, reward, done = self.step(action, player)
                player = not player
                if done:
                    self.q[state][action] += self.alpha * (reward - self.q[state][action])
                    break
                ahead = self.choose_action(player)
                target = reward + self.discount * self.q[after][ahead]
                self.q[state][action] += self.alpha * (target - self.q[state][action])
                state, action = after, ahead
"""

#: Each variant: the student's changes to the faithful file, the checks judged here (those
#: its difference touches), and words of the notes its building gets (none for the text's
#: own constructor).
VARIANTS: dict[str, tuple[Changes, tuple[str, ...], list[str]]] = {
    # the settings as keywords with defaults, in the student's own order, the discount gamma
    "keyword_defaults.py": (
        (
            ("(self, epsilon, discount, alpha,", "(self, alpha=0.5, gamma=0.9, epsilon=0.1,"),
            ("self.discount = discount", "self.gamma = gamma"),
            ("self.discount * ", "self.gamma * "),
            ("random.random() < self.epsilon", "random.uniform(0, 1) < self.epsilon"),
            ("Agent(0.1, 0.9, 0.5, algorithm=", "Agent(algorithm="),
        ),
        ("choose_action", "sarsa"),
        ["Agent built as Agent(alpha=0.5, gamma=0.9, epsilon=0.1): its parameters matched"],
    ),
    # a constructor that says what each setting is, kept under short names
    "other_names.py": (
        (
            (
                "(self, epsilon, discount, alpha,",
                "(self, learning_rate, discount_factor, exploration_rate,",
            ),
            (
                SETTINGS,
                "        self.lr = learning_rate\n        self.df = discount_factor\n"
                "        self.explore = exploration_rate\n",
            ),
            ("< self.epsilon", "< self.explore"),
            ("self.discount * ", "self.df * "),
            ("self.alpha * ", "self.lr * "),
            ("Agent(0.1, 0.9, 0.5,", "Agent(0.5, 0.9, 0.1,"),
        ),
        ("qlearning",),
        ["Agent(learning_rate=0.5, discount_factor=0.9, exploration_rate=0.1)"],
    ),
    # a terse Agent(e, g, a), the states seen kept as a dict's keys with the times reached
    "letters_dict_states.py": (
        (
            ("(self, epsilon, discount, alpha,", "(self, e, g, a,"),
            (SETTINGS, "        self.e, self.g, self.a = e, g, a\n"),
            ("self.states = set()", "self.states = {}"),
            ("self.states.add(state)", "self.states[state] = 0"),
            ("        return state\n", "        self.states[state] += 1\n        return state\n"),
            ("< self.epsilon", "< self.e"),
            ("self.discount * ", "self.g * "),
            ("self.alpha * ", "self.a * "),
        ),
        ("add_state", "qlearning"),
        ["Agent(e=0.1, g=0.9, a=0.5)"],
    ),
    # the algorithm a required argument, checked by the constructor
    "required_algorithm.py": (
        (
            (
                ', alpha, algorithm="qlearning"):\n',
                ", alpha, algorithm):\n"
                '        if algorithm not in ("qlearning", "sarsa"):\n'
                '            raise ValueError("algorithm must be qlearning or sarsa")\n',
            ),
        ),
        ("sarsa",),
        ["algorithm given as 'qlearning'"],
    ),
    # q a defaultdict of rows, each made by dict.fromkeys; the states seen kept in a list
    "defaultdict_list_states.py": (
        (
            ("import random\n", FROM_DEFAULTDICT),
            ("self.q = {}", "self.q = defaultdict(dict)"),
            ("self.states = set()", "self.states = []"),
            ("self.states.add(state)", "self.states.append(state)"),
            (
                "        self.q[state] = {}\n        for action in open:\n"
                "            self.q[state][action] = 0.0\n",
                "        self.q[state] = dict.fromkeys(open, 0.0)\n",
            ),
        ),
        ("add_state", "sarsa"),
        [],
    ),
    # q nested defaultdicts of floats, the greedy action the first of best value (ties
    # broken by order), a state new when q has no row for it
    "nested_defaultdict.py": (
        (
            ("import random\n", FROM_DEFAULTDICT),
            ("self.q = {}", "self.q = defaultdict(lambda: defaultdict(float))"),
            ("self.q[state] = {}", "self.q[state] = defaultdict(float)"),
            (
                faithful("Agent.best_action"),
                "    def best_action(self, player):\n"
                "        row = self.q[self.State.state]\n"
                "        return (max if player else min)(row, key=row.get)\n",
            ),
            ("if state not in self.states:", "if state not in self.q:"),
        ),
        ("best_action", "qlearning"),
        [],
    ),
    # a Board that takes the marks as the numbers 1 and 2 (or the digits) and writes digits
    "int_marks.py": (
        (
            ('self.players = {True: "1", False: "2"}', "self.players = {True: 1, False: 2}"),
            (
                "        cells = list(self.state)\n",
                "        player = str(player)  # 1 and 2, or the digits\n"
                "        cells = list(self.state)\n",
            ),
        ),
        ("qlearning",),
        [],
    ),
    # the agent hands its player, True for X and False for O, straight to the Board
    "bool_marks.py": (
        (
            (
                "        cells = list(self.state)\n",
                '        player = "1" if player is True or player == "1" else "2"\n'
                "        cells = list(self.state)\n",
            ),
            ('        self.players = {True: "1", False: "2"}\n', ""),
            ("self.State.play(action, self.players[player])", "self.State.play(action, player)"),
        ),
        ("sarsa",),
        [],
    ),
    # a finished board has no actions: its state is added with an empty row of q
    "empty_finished_row.py": (
        (
            (
                "            self.add_state(state, self.State.open)\n",
                "            over = self.State.winner is not None\n"
                "            self.add_state(state, [] if over else self.State.open)\n",
            ),
        ),
        ("qlearning", "sarsa"),
        [],
    ),
    # numpy does the random draws: the exploring move and the choice among tied actions
    "numpy_egreedy.py": (
        (
            ("import random\n", "import numpy as np\n"),
            (
                faithful("Agent.best_action"),
                "    def best_action(self, player):\n"
                "        actions = list(self.q[self.State.state])\n"
                "        values = np.array([self.q[self.State.state][a] for a in actions])\n"
                "        best = values.max() if player else values.min()\n"
                "        return actions[np.random.choice(np.flatnonzero(values == best))]\n",
            ),
            ("random.random() < self.epsilon", "np.random.rand() < self.epsilon"),
            ("random.choice(self.State.open)", "np.random.choice(self.State.open)"),
        ),
        ("choose_action", "qlearning"),
        [],
    ),
    # a Board with more than the text asks for; the agent resets its one Board (BOARD_EXTRAS)
    "board_extras.py": (
        (
            ("import random\n", "import copy\nimport random\n"),
            (
                '    def __init__(self, state="000000000"):\n        self.winner = None\n',
                '    def __init__(self, state="000000000"):\n        self.reset(state)\n\n'
                '    def reset(self, state="000000000"):\n        self.winner = None\n'
                "        self.history = []\n",
            ),
            ("\n    def check_end(", BOARD_EXTRAS + "    def check_end("),
            (
                "        self.open.remove(action)\n",
                "        self.history.append(action)\n        self.open.remove(action)\n",
            ),
            (faithful("Agent.qlearning") + "\n" + faithful("Agent.sarsa"), ONE_BOARD),
            ("random.choice(self.State.open)", "random.choice(self.State.legal_moves)"),
            (
                "random.choice([action for action, value in values.items() if value == best])",
                "random.choice([a for a in self.State.legal_moves if values[a] == best])",
            ),
        ),
        ("sarsa",),
        [],
    ),
    # learning around a step function; SARSA choosing ahead (STEP_QLEARNING, STEP_SARSA)
    "step_style.py": (
        (
            (faithful("Agent.qlearning"), STEP_QLEARNING),
            (faithful("Agent.sarsa"), STEP_SARSA),
            ("def move(self, action, player):", "def step(self, action, player):"),
            (
                "returns the state it leads to, added if new.",
                "returns the state it leads to (added if new), the reward and whether it ended.",
            ),
            (
                "        return state\n",
                "        return state, self.State.reward, self.State.winner is not None\n",
            ),
        ),
        ("qlearning", "sarsa"),
        [],
    ),
}


def student(tmp_path: Path, name: str) -> Path:
    """The variant ``name``: the faithful file with its changes made."""
    return write_edited(FAITHFUL, list(VARIANTS[name][0]), tmp_path / name)


def _child(path: Path) -> QAgentChild:
    return QAgentChild(load_module(path, f"q_variant_{next(_LOADED)}"))


def test_ten_variants_or_more_each_its_own(tmp_path: Path) -> None:
    written = {student(tmp_path, name).read_text() for name in VARIANTS}
    assert len(VARIANTS) >= 10
    assert len(written) == len(VARIANTS)
    assert FAITHFUL not in written


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_variant_names_how_its_agent_was_built(tmp_path: Path, name: str) -> None:
    prepared = _child(student(tmp_path, name)).prepare()
    notes = prepared["notes"] if prepared else []
    assert prepared is None or "problem" not in prepared, prepared
    shown = " | ".join(notes)
    for words in VARIANTS[name][2]:
        assert words in shown, shown
    assert bool(notes) == bool(VARIANTS[name][2]), shown


@pytest.mark.parametrize(
    ("name", "check"), [(n, c) for n, (_, checks, _) in sorted(VARIANTS.items()) for c in checks]
)
def test_each_variant_passes_the_checks_its_difference_touches(
    tmp_path: Path, name: str, check: str
) -> None:
    result = judged_here(student(tmp_path, name), "q-agent", check)
    assert result.ok, result.example


@pytest.mark.parametrize(
    ("name", "words"),
    [("int_marks.py", "as 1, 2, not the text's"), ("bool_marks.py", "as False, True, not")],
)
def test_marks_in_another_form_are_named_in_a_note(tmp_path: Path, name: str, words: str) -> None:
    truth = exercise_truth()
    first = SPEC.cases(truth)["qlearning"][0]

    def run(target: Any, *args: Any) -> list[Any]:
        found: list[Any] = guarded(target, args)
        return found

    answer = _child(student(tmp_path, name)).call(
        "qlearning", SPEC.payload("qlearning", first), run
    )
    outcome = json.loads(json.dumps(answer))
    assert SPEC.right("qlearning", first, outcome, truth)
    notes = SPEC.notes({"qlearning": [first]}, {"qlearning": [outcome]})
    assert len(notes) == 1
    assert words in notes[0]
    assert "judged by the mark its own Board wrote" in notes[0]
    junk = {"qlearning": [["v", ["g", "junk"]], ["e", "raised"]]}
    assert SPEC.notes({"qlearning": [first, first]}, junk) == []


def test_int_marks_pass_every_check_of_both_shapes_in_the_box(tmp_path: Path) -> None:
    report = check_path(student(tmp_path, "int_marks.py"))
    assert report.exercise == "board+q-agent"
    assert report.ok, report.as_json()


def test_a_required_algorithm_parameter_passes_in_the_box(tmp_path: Path) -> None:
    path = student(tmp_path, "required_algorithm.py")
    report = check_path(path, exercise="q-agent", only=("choose_action", "sarsa"))
    assert report.exercise == "q-agent"
    assert report.ok, report.as_json()
