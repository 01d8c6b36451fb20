"""Honest variants of the course's TD(0) agent: correct agents written differently from the
texts in ways the texts allow (another constructor, the table as a dict, a list or float32,
the table or the symbol given to the constructor or set as an attribute, a history of its
own, the class named Player, an agent that reads its own Environment's additions...). Each
passes every check, each adaptation is named in a note, and no adaptation turns a classic
bug into a pass.

Each variant is the faithful agent (``corpus/td_agent/agent.py``) with the student's own
way written into it (:class:`Variant`: the functions the student wrote anew, then the
changes, each of which must apply), made in ``tmp_path`` at test time. Most are judged in
this process; the constructor, Player and Environment ones go through the real box too."""

from __future__ import annotations

import ast
import itertools
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.usercode.helpers import edited, failing_here, judged_here, load_module
from tttlab.usercode.boxside.shapes.td_agent import TDAgentChild
from tttlab.usercode.grading import check_path

CORPUS = Path(__file__).parent / "corpus"
FAITHFUL = (CORPUS / "td_agent" / "agent.py").read_text()
COURSE_ENVIRONMENT = (CORPUS / "course" / "Environment.py").read_text()
_LOADED = itertools.count()
Changes = tuple[tuple[str, str], ...]


def rewritten(source: str, name: str, new: str) -> str:
    """``source`` with the one function called ``name`` (with its decorators) replaced by
    ``new``, indented as it was ("" drops it)."""
    found = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef) and node.name == name
    ]
    assert len(found) == 1, name
    node = found[0]
    lines = source.splitlines(keepends=True)
    start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
    assert node.end_lineno is not None
    text = textwrap.indent(textwrap.dedent(new).lstrip("\n"), " " * node.col_offset)
    assert text != "".join(lines[start : node.end_lineno]), name
    return "".join([*lines[:start], text, *lines[node.end_lineno :]])


@dataclass(frozen=True)
class Variant:
    """A student's way of writing the course's agent: the faithful agent with the functions
    in ``functions`` written anew (name, new text) and then the ``changes`` made; ``notes``
    are words of the notes its report gives (none: the text's way)."""

    changes: Changes = ()
    functions: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()

    def source(self, more: Changes = ()) -> str:
        """The student's file, with ``more`` changes made to it (a bug)."""
        source = FAITHFUL
        for name, new in self.functions:
            source = rewritten(source, name, new)
        return edited(edited(source, list(self.changes)), list(more), once=True)


# the parts of the faithful agent the variants change

TEXT_OPTIONS = (
    "def __init__(self, eps=0.1, alpha=0.5):\n        self.eps = eps\n        self.alpha = alpha\n"
)
NO_SETV = ("    def setV(self, V):\n        self.V = V\n\n", "")
ALTERNATION = (
    "        if current_player == p1:\n            current_player = p2\n"
    "        else:\n            current_player = p1\n"
)
NUMPY = "import numpy as np\n"

HUMAN = """
class Human:
    def set_symbol(self, sym):
        self.sym = sym

    def take_action(self, env):
        while True:
            i, j = (int(x) for x in input("row,col: ").split(","))
            if env.is_empty(i, j):
                env.board[i, j] = self.sym
                return

    def update_state_history(self, s):
        pass

    def update(self, env):
        pass


class Player:
"""

FLOAT32_MOVE = """
def take_action(self, env):
    free = list(zip(*np.where(env.board == 0)))
    if np.random.rand() < self.eps:
        cell = free[np.random.choice(len(free))]
    else:
        after = []
        for cell in free:
            env.board[cell] = self.sym
            after.append(self.V[env.get_state()])
            env.board[cell] = 0
        cell = free[int(np.argmax(after))]
    env.board[cell] = self.sym
"""

FOUND_MOVE = """
def next_values(self, env):
    found = {}
    for i in range(3):
        for j in range(3):
            if env.is_empty(i, j):
                env.board[i, j] = self.sym
                found[(i, j)] = self.V[env.get_state()]
                env.board[i, j] = 0
    return found

def take_action(self, env):
    found = self.next_values(env)
    cells = list(found)
    if np.random.rand() < self.eps:
        i, j = cells[np.random.choice(len(cells))]
    else:
        i, j = max(cells, key=lambda c: found[c])
    env.board[i, j] = self.sym
"""

STATE_ID_MOVE = """
@staticmethod
def state_id(board, env):
    h = 0
    for k, v in enumerate(np.asarray(board).reshape(-1)):
        h += 3**k * (1 if v == env.x else 2 if v == env.o else 0)
    return h

def take_action(self, env):
    empty = [(i, j) for i in range(3) for j in range(3) if env.board[i, j] == 0]
    if random.random() < self.eps:
        i, j = random.choice(empty)
    else:
        scored = []
        for i, j in empty:
            after = np.array(env.board, dtype=float)
            after[i, j] = self.sym
            scored.append((self.V[self.state_id(after, env)], -empty.index((i, j)), (i, j)))
        i, j = max(scored)[2]
    env.board[i, j] = self.sym
"""

OWN_ENV_MOVE = """
def take_action(self, env):
    cells = env.moves()
    assert len(cells) <= env.size * env.size
    if np.random.rand() < self.eps:
        i, j = cells[np.random.choice(len(cells))]
    else:
        best, (i, j) = -1.0, cells[0]
        for a, b in cells:
            env.board[a, b] = self.sym
            value = self.V[env.get_state()]
            env.board[a, b] = 0
            if value > best:
                best, i, j = value, a, b
    env.board[i, j] = self.sym
"""

#: Each single-file variant: the student's way, and words of the notes its report gives.
VARIANTS: dict[str, Variant] = {
    # every parameter required, the symbol given to the constructor; the game loop a cycle
    "ctor_names": Variant(
        (
            ("self.eps", "self.epsilon"),
            ("self.alpha", "self.learning_rate"),
            ("self.sym", "self.symbol"),
            ("(self, eps=0.1, alpha=0.5):", "(self, epsilon, learning_rate, symbol):"),
            ("self.epsilon = eps\n", "self.epsilon = epsilon\n"),
            (
                "self.learning_rate = alpha\n",
                "self.learning_rate = learning_rate\n        self.symbol = symbol\n",
            ),
            ("    def set_symbol(self, sym):\n        self.symbol = sym\n\n", ""),
            (NUMPY, "import itertools\n\n" + NUMPY),
            ("    current_player = None\n    while not env.game_over():\n", ""),
            (
                ALTERNATION,
                "    for current_player in itertools.cycle([p1, p2]):\n"
                "        if env.game_over():\n            break\n",
            ),
        ),
        notes=("built as Agent(epsilon=eps, learning_rate=alpha, symbol=sym), its parameters",),
    ),
    # the class named Player (keyword options, verbose first) beside a human player; the
    # game is played by a main script elsewhere
    "player": Variant(
        (
            ("\nclass Agent:\n", HUMAN),
            ("(self, eps=0.1, alpha=0.5):", "(self, verbose=False, eps=0.1, alpha=0.5):"),
            ("self.verbose = False", "self.verbose = verbose"),
        ),
        functions=(("play_game", ""),),
        notes=("the agent: your class Player, graded as the course's Agent",),
    ),
    # the table a dict the agent makes itself (no setV: the main script fills agent.V),
    # read with get() and a default, the history emptied with clear()
    "dict_table": Variant(
        (
            ("self.verbose = False\n", "self.verbose = False\n        self.V = {}\n"),
            NO_SETV,
            ("self.V[state]", "self.V.get(state, 0.5)"),
            (
                "self.V[prev] + self.alpha * (target - self.V[prev])",
                "self.V.get(prev, 0.5) + self.alpha * (target - self.V.get(prev, 0.5))",
            ),
            ("self.reset_history()\n", "self.state_history.clear()\n"),
        ),
        notes=("V set as the attribute V", "V given as a dict, the container your"),
    ),
    # the table a plain list under the name values (set_values), the symbol set by set_sym,
    # the history named states, and the sweep written with indices
    "list_values": Variant(
        (
            ("self.V", "self.values"),
            ("self.state_history", "self.states"),
            (
                "setV(self, V):\n        self.values = V",
                "set_values(self, values):\n        self.values = list(values)",
            ),
            ("def set_symbol(", "def set_sym("),
            (
                "for prev in reversed(self.states):",
                "for i in range(len(self.states) - 1, -1, -1):\n            prev = self.states[i]",
            ),
        ),
        notes=(
            "V given through set_values()",
            "the symbol given through set_sym()",
            "its history read as agent.states",
        ),
    ),
    # the table kept as float32 (half the memory), updated in place with +=; the move
    # numpy's argmax over the values after each free cell
    "float32": Variant(
        (
            ("self.V = V", "self.V = np.asarray(V, dtype=np.float32)"),
            ("value = self.V[prev] + self.alpha", "self.V[prev] += self.alpha"),
            (
                "            self.V[prev] = value\n            target = value\n",
                "            target = self.V[prev]\n",
            ),
        ),
        functions=(("take_action", FLOAT32_MOVE),),
        notes=("V kept as float32: its values compared at float32 precision",),
    ),
    # the table and the symbol given to the constructor, no setters; the move the best of
    # the values found after each empty cell
    "ctor_table": Variant(
        (
            (
                "(self, eps=0.1, alpha=0.5):\n",
                "(self, V, sym, eps=0.1, alpha=0.5):\n        self.V = V\n        self.sym = sym\n",
            ),
            NO_SETV,
            ("    def set_symbol(self, sym):\n        self.sym = sym\n\n", ""),
        ),
        functions=(("take_action", FOUND_MOVE),),
        notes=("built as Agent(V=V, sym=sym, eps=eps, alpha=alpha)",),
    ),
    # options fixed in __init__, table and symbol set as attributes by the main script: no
    # parameters, no setters
    "attributes": Variant(
        (
            (
                TEXT_OPTIONS,
                "def __init__(self):\n        self.eps = 0.1\n        self.alpha = 0.5\n",
            ),
            NO_SETV,
            ("    def set_symbol(self, sym):\n        self.sym = sym\n\n", ""),
            (
                "    p2.update(env)\n",
                '    p2.update(env)\n\n\nif __name__ == "__main__":\n'
                "    p1, p2 = Agent(), Agent()\n"
                "    p1.V, p2.V = np.full(3**9, 0.5), np.full(3**9, 0.5)\n"
                "    p1.sym, p2.sym = -1, 1\n",
            ),
        ),
        notes=(
            "V set as the attribute V",
            "the symbol set as the attribute sym",
            "eps set as the attribute eps; alpha set as the attribute alpha",
        ),
    ),
    # the next state's id worked out from a copy of the board (the symbols compared through
    # env.x and env.o), never marking a cell it does not play: the text's way otherwise
    "own_state_id": Variant(
        ((NUMPY, "import random\n\n" + NUMPY),), functions=(("take_action", STATE_ID_MOVE),)
    ),
    # the history a deque under its own name, emptied by popping it from the right; the game
    # loop counts turns
    "deque_history": Variant(
        (
            (NUMPY, "from collections import deque\n\n" + NUMPY),
            ("self.state_history", "self.history"),
            ("self.history = []", "self.history = deque()"),
            (
                "for prev in reversed(self.history):",
                "while self.history:\n            prev = self.history.pop()",
            ),
            ("        self.reset_history()\n", ""),
            ("    current_player = None\n", "    turn = 0\n"),
            (ALTERNATION, "        current_player = (p1, p2)[turn % 2]\n        turn += 1\n"),
        ),
        notes=("its history read as agent.history",),
    ),
    # Agent(alpha, gamma, epsilon, player): a discount in the update (the course's has none:
    # gamma = 1 is its update), the player's symbol given to the constructor
    "gamma": Variant(
        (
            ("self.eps", "self.epsilon"),
            ("self.sym", "self.player"),
            (
                TEXT_OPTIONS.replace("self.eps", "self.epsilon"),
                "def __init__(self, alpha, gamma, epsilon, player):\n"
                "        self.alpha, self.gamma = alpha, gamma\n"
                "        self.epsilon, self.player = epsilon, player\n",
            ),
            ("    def set_symbol(self, sym):\n        self.player = sym\n\n", ""),
            ("(target - self.V[prev])", "(self.gamma * target - self.V[prev])"),
        ),
        notes=("Agent(alpha=alpha, gamma=discount, epsilon=eps, player=sym)",),
    ),
    # options taken as keyword arguments (Agent(**options)), each with its default
    "kwargs": Variant(
        (
            (
                TEXT_OPTIONS,
                "def __init__(self, **options):\n        self.eps = options.get('eps', 0.1)\n"
                "        self.alpha = options.get('alpha', 0.5)\n",
            ),
        ),
        notes=("eps set as the attribute eps",),
    ),
}

#: A student's own Environment (the course's, with the board's size and the open cells as its
#: own additions) and an agent that reads them; the agent plays no game of its own.
OWN_ENVIRONMENT: Changes = (
    ("def __init__(self):\n", "def __init__(self, size=3):\n        self.size = size\n"),
    ("np.zeros((LENGTH, LENGTH))", "np.zeros((size, size))"),
    ("3 ** (LENGTH * LENGTH)", "3 ** (size * size)"),
    (
        "    def is_empty(",
        "    def moves(self):\n        return [(i, j) for i in range(self.size)"
        " for j in range(self.size) if self.board[i, j] == 0]\n\n"
        "    def is_empty(",
    ),
    ("player * LENGTH", "player * self.size"),
)
OWN_ENV_AGENT = Variant(functions=(("take_action", OWN_ENV_MOVE), ("play_game", "")))


def student(tmp_path: Path, name: str, more: Changes = ()) -> Path:
    """The variant ``name`` written in ``tmp_path``, with ``more`` changes made to it."""
    path = tmp_path / f"{name}.py"
    path.write_text(VARIANTS[name].source(more))
    return path


def own_environment(tmp_path: Path) -> Path:
    """The folder of the student with an Environment of their own."""
    folder = tmp_path / "own_env"
    folder.mkdir()
    (folder / "agent.py").write_text(OWN_ENV_AGENT.source())
    (folder / "environment.py").write_text(edited(COURSE_ENVIRONMENT, list(OWN_ENVIRONMENT)))
    return folder


def _prepared(path: Path) -> dict[str, list[str] | str] | None:
    """What the agent's child says before the calls (its notes, or its one problem)."""
    return TDAgentChild(load_module(path, f"td_variant_{next(_LOADED)}")).prepare()


def test_there_are_ten_variants_or_more_each_its_own() -> None:
    sources = [v.source() for v in [*VARIANTS.values(), OWN_ENV_AGENT]]
    assert len(sources) >= 10
    assert len({FAITHFUL, *sources}) == len(sources) + 1


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_variant_names_its_adaptations_in_notes(name: str, tmp_path: Path) -> None:
    prepared = _prepared(student(tmp_path, name))
    notes = prepared["notes"] if prepared else []
    assert isinstance(notes, list)
    shown = " | ".join(notes)
    for words in VARIANTS[name].notes:
        assert words in shown, shown
    assert bool(notes) == bool(VARIANTS[name].notes), shown


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_variant_passes_every_check(name: str, tmp_path: Path) -> None:
    path = student(tmp_path, name)
    checks = ["update", "take_action"]
    if "\ndef play_game(" in path.read_text():
        checks.append("play_game")
    for check in checks:
        result = judged_here(path, "td-agent", check)
        assert result.ok, (check, result)


#: A classic bug in a variant, the check it must fail, and words of its counterexample:
#: an adaptation (a float32 tolerance, a table given by attribute, a constructor matched by
#: name, a history found by its growth) never makes it pass.
BUGS: dict[str, tuple[str, str, Changes, str]] = {
    "float32, the sweep run forwards": (
        "float32",
        "update",
        (("for prev in reversed(self.state_history):", "for prev in self.state_history:"),),
        "expected",
    ),
    "float32, alpha fixed": (
        "float32",
        "update",
        (("self.V[prev] += self.alpha * (target", "self.V[prev] += 0.5 * (target"),),
        "V[",
    ),
    "float32, the last state left out": (
        "float32",
        "update",
        (("in reversed(self.state_history):", "in reversed(self.state_history[:-1]):"),),
        "V[",
    ),
    "float32, the target not carried back": (
        "float32",
        "update",
        (("            target = self.V[prev]\n", ""),),
        "V[",
    ),
    "float32, a tie broken toward the worst": (
        "float32",
        "take_action",
        (("cell = free[int(np.argmax(after))]", "cell = free[int(np.argmin(after))]"),),
        "whose next state has V",
    ),
    "a constructor matched by name, alpha stored misspelt": (
        "ctor_names",
        "update",
        (("self.learning_rate = learning_rate", "self.learning_rat = learning_rate"),),
        "has no attribute 'learning_rate'",
    ),
    "a dict table, the history kept": (
        "dict_table",
        "update",
        (("self.state_history.clear()", "pass"),),
        "the history still holds",
    ),
    "a history of its own name, kept": (
        "deque_history",
        "update",
        (
            (
                "while self.history:\n            prev = self.history.pop()",
                "for prev in reversed(self.history):",
            ),
        ),
        "the history still holds",
    ),
    "options set as attributes, eps reversed": (
        "attributes",
        "take_action",
        (("if r < self.eps:", "if r > self.eps:"),),
        "whose next state has V",
    ),
    "a list table, a probed cell left marked": (
        "list_values",
        "take_action",
        (("                        env.board[i, j] = 0\n", ""),),
        "a probed cell left marked?",
    ),
    "a table given to the constructor, the worst move": (
        "ctor_table",
        "take_action",
        (("max(cells, key=lambda c: found[c])", "min(cells, key=lambda c: found[c])"),),
        "whose next state has V",
    ),
    "Player, the sweep run forwards": (
        "player",
        "update",
        (("for prev in reversed(self.state_history):", "for prev in self.state_history:"),),
        "expected",
    ),
}


@pytest.mark.parametrize(("name", "check", "changes", "words"), list(BUGS.values()), ids=list(BUGS))
def test_no_adaptation_turns_a_classic_bug_into_a_pass(
    name: str, check: str, changes: Changes, words: str, tmp_path: Path
) -> None:
    failing_here(student(tmp_path, name, changes), "td-agent", check, words)


def test_a_constructor_no_way_fits_is_one_problem_with_the_name_to_paste(tmp_path: Path) -> None:
    path = student(
        tmp_path,
        "ctor_names",
        (
            ("(self, epsilon, learning_rate, symbol):", "(self, randomness, speed, symbol):"),
            ("self.epsilon = epsilon", "self.epsilon = randomness"),
            ("self.learning_rate = learning_rate", "self.learning_rate = speed"),
        ),
    )
    assert _prepared(path) == {
        "problem": "Agent(randomness, speed, symbol) cannot be built: "
        "--name eps=randomness --name alpha=speed"
    }
    report = check_path(path, names={"eps": "randomness", "alpha": "speed"}, only=("update",))
    assert report.ok, report.as_json()


# through the real box


@pytest.mark.parametrize(
    ("name", "checks"), [("ctor_names", 3), ("player", 2)], ids=["constructor", "player"]
)
def test_in_the_box_the_variant_passes(name: str, checks: int, tmp_path: Path) -> None:
    report = check_path(student(tmp_path, name), exercise="td-agent")
    assert report.exercise == "td-agent"
    assert report.ok, report.as_json()
    assert len(report.checks) == checks


def test_in_the_box_the_agent_with_its_own_environment_passes(tmp_path: Path) -> None:
    report = check_path(own_environment(tmp_path), exercise="td-agent")
    assert report.exercise == "td-agent"
    assert report.ok, report.as_json()
    assert len(report.checks) == 2


def test_the_own_environment_variant_fails_on_the_plain_stand_in(tmp_path: Path) -> None:
    """Without its Environment beside it, the agent reads what only that class has."""
    agent = own_environment(tmp_path) / "agent.py"
    _, example = failing_here(agent, "td-agent", "take_action", "moves")
    assert "'Environment' has no attribute 'moves'" in example.got


def test_player_is_found_without_being_named(tmp_path: Path) -> None:
    report = check_path(student(tmp_path, "player"), only=("update",))
    assert report.exercise == "td-agent"
    assert report.ok, report.as_json()
