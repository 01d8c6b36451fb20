""":mod:`tttlab.usercode.boxside.shapes.world`: the agent plays on the student's own
Environment (its constructor, its methods, its attributes); tttlab sets and reads the board
through the mapping it finds and judges by its own rules. A world that does not count as the
course does is not played on (the stand-in is, with a note), and a wrong agent in its own
world still fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.usercode.helpers import failing_here, judged_here, load_module
from tttlab.usercode.boxside.shapes.td_agent import TDAgentChild
from tttlab.usercode.boxside.shapes.world import BOARDS, Own, course_state, own_world

CORPUS = Path(__file__).parent / "corpus"
ENVIRONMENT = (CORPUS / "course" / "Environment.py").read_text()
AGENT = (CORPUS / "course" / "Agent.py").read_text().replace("from Environment import LENGTH\n", "")

#: The course's Environment with its board in ``tiles`` and a column-first ``is_empty(x, y)``,
#: and an agent that reads it so (shape 4 of the issue).
TILES = [
    ("self.board = np.zeros((LENGTH, LENGTH))", "self.tiles = np.zeros((LENGTH, LENGTH))"),
    (
        "    def is_empty(self, i, j):\n        return self.board[i, j] == 0",
        "    def is_empty(self, x, y):\n        return self.tiles[y, x] == 0",
    ),
    ("self.board.flatten()", "self.tiles.flatten()"),
    ("b = self.board", "b = self.tiles"),
    ("env.board[i, j] = v", "env.tiles[i, j] = v"),
]
TILES_AGENT = [
    (
        "empty = [(i, j) for i in range(LENGTH) for j in range(LENGTH) if env.is_empty(i, j)]",
        "empty = [(x, y) for x in range(LENGTH) for y in range(LENGTH) if env.is_empty(x, y)]",
    ),
    ("env.board[i, j] = self.sym", "env.tiles[j, i] = self.sym"),
    ("env.board[i, j] = 0", "env.tiles[j, i] = 0"),
    ("env.board[move] = self.sym", "env.tiles[move[1], move[0]] = self.sym"),
]
#: Built as Environment(rows, columns), the agent reading env.rows (shape 5).
SIZED = [
    (
        "    def __init__(self):\n        self.board = np.zeros((LENGTH, LENGTH))",
        "    def __init__(self, rows, columns):\n        self.rows, self.columns = rows, columns\n"
        "        self.board = np.zeros((rows, columns))",
    )
]
SIZED_AGENT = [
    (
        "for i in range(LENGTH) for j in range(LENGTH)",
        "for i in range(env.rows) for j in range(env.columns)",
    )
]
#: A list of lists of strings, the symbols "X" and "O" as attributes x and o.
STRINGS = [
    ("self.board = np.zeros((LENGTH, LENGTH))", "self.board = [[' '] * 3 for _ in range(3)]"),
    ("self.x = -1\n        self.o = 1", "self.x = 'X'\n        self.o = 'O'"),
    ("return self.board[i, j] == 0", "return self.board[i][j] == ' '"),
    (
        "        for k, v in enumerate(self.board.flatten()):\n"
        "            code = 0 if v == 0 else 1 if v == self.x else 2",
        "        for k, v in enumerate([c for row in self.board for c in row]):\n"
        "            code = 0 if v == ' ' else 1 if v == self.x else 2",
    ),
    ("        b = self.board\n", "        b = np.array(self.board)\n"),
    (
        "            if any(line.sum() == player * LENGTH for line in lines):",
        "            if any(all(c == player for c in line) for line in lines):",
    ),
    ("self.ended = bool(np.all(b != 0))", "self.ended = bool(np.all(b != ' '))"),
]
STRINGS_AGENT = [
    ("env.board[i, j] = self.sym", "env.board[i][j] = self.sym"),
    ("env.board[i, j] = 0", "env.board[i][j] = ' '"),
    ("env.board[move] = self.sym", "env.board[move[0]][move[1]] = self.sym"),
]


def _module(tmp_path: Path, env: list[tuple[str, str]], agent: list[tuple[str, str]]) -> Path:
    source = ENVIRONMENT
    for old, new in env:
        assert old in source, old
        source = source.replace(old, new)
    mover = AGENT
    for old, new in agent:
        assert old in mover, old
        mover = mover.replace(old, new)
    path = tmp_path / "student.py"
    path.write_text(source + "\n\n" + mover.replace('"""The course', "# The course"))
    return path


WORLDS = {
    "tiles, column first": (TILES, TILES_AGENT, "tiles"),
    "rows and columns": (SIZED, SIZED_AGENT, "board"),
    "lists of strings": (STRINGS, STRINGS_AGENT, "board"),
}


@pytest.mark.parametrize("world", sorted(WORLDS))
def test_the_agent_plays_in_its_own_world(world: str, tmp_path: Path) -> None:
    env, agent, board = WORLDS[world]
    path = _module(tmp_path, env, agent)
    own, why = own_world(load_module(path, f"world_{abs(hash(world))}"), {})
    assert own is not None, why
    assert own.board == board
    for check in ("take_action", "update"):
        assert judged_here(path, "td-agent", check).ok, (world, check)


def test_a_world_reads_back_what_it_was_set_to(tmp_path: Path) -> None:
    path = _module(tmp_path, STRINGS, STRINGS_AGENT)
    own, _ = own_world(load_module(path, "world_strings"), {})
    assert own is not None
    for board in BOARDS:
        env = own.fresh()
        own.put(env, board)
        assert own.read(env) == board
        assert env.get_state() == course_state(board)


def test_a_wrong_agent_still_fails_in_its_own_world(tmp_path: Path) -> None:
    # it probes the cell it means, then marks the transposed one
    wrong = [*TILES_AGENT[:-1], ("env.board[move] = self.sym", "env.tiles[move] = self.sym")]
    path = _module(tmp_path, TILES, wrong)
    failing_here(path, "td-agent", "take_action", "")


def test_a_world_that_does_not_count_as_the_course_is_not_played_on(tmp_path: Path) -> None:
    reversed_states = [("h += 3**k * code", "h += 3 ** (8 - k) * code")]
    path = _module(tmp_path, reversed_states, [])
    module = load_module(path, "world_reversed")
    own, why = own_world(module, {})
    assert own is None
    assert "get_state gives" in why
    child = TDAgentChild(module, {})
    prepared = child.prepare()
    assert prepared is not None
    assert any("stand-in Environment, not yours" in n for n in prepared["notes"])
    # the agent itself is right: on the stand-in it passes
    assert judged_here(path, "td-agent", "take_action").ok


def test_a_world_without_one_board_attribute_says_so() -> None:
    class Two:
        def __init__(self) -> None:
            self.a = [[0] * 3 for _ in range(3)]
            self.b = [0] * 9
            self.x, self.o = 1, 2

    assert "no one attribute holds its board" in (Own(Two, {}).check() or "")
    assert Own(Two, {"board": "b"}).locate() is None  # --name board=b says which


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (
            ("return 1 if self.winner == sym else 0", "return 1 if self.winner == sym else -1"),
            "reward for",
        ),
        (("return self.board[i, j] == 0", "return self.board[i, j] != 0"), "is_empty"),
    ],
    ids=["a loss rewarded -1", "is_empty reversed"],
)
def test_an_environment_that_rewards_or_reads_otherwise_is_not_played_on(
    change: tuple[str, str], why: str, tmp_path: Path
) -> None:
    """Its faults are the course check's to find, never charged to a correct agent."""
    path = _module(tmp_path, [change], [])
    own, said = own_world(load_module(path, f"world_{why[:6]}"), {})
    assert own is None
    assert why in said
    assert judged_here(path, "td-agent", "update").ok
