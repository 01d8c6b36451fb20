"""``ttt check`` on the MDP text's module (seed 004): a faithful copy passes every check,
each classic bug fails the check that names the part holding it, and the student's own
choices (the order of the states, their representatives, float128, the time-greedy
rewards, one iteration of the two) pass. The grader's exact MDP agrees with tttlab's."""

from __future__ import annotations

import copy
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.usercode.helpers import failing, passing, write_edited
from tttlab.game import Player, state_space
from tttlab.planning import build_mdp
from tttlab.usercode.exercises.mdp import NEITHER, MDPTextExercise
from tttlab.usercode.exercises.mdp_judge import (
    count_finding,
    fraction,
    scheme_of,
    state_finding,
)
from tttlab.usercode.exercises.mdp_truth import (
    ENDS,
    G3,
    after,
    canonical,
    evaluate,
    mdp_truth,
    text_id,
)
from tttlab.usercode.grading import check_path

FAITHFUL = Path(__file__).parent / "corpus" / "mdp" / "ttt_mdp.py"

#: The text's own check that every row sums to 1 (it stops the module at import).
STOCHASTIC = (
    "        if not np.isclose(sto[i, a], 1.0, rtol=0.0, atol=1e-12):\n            raise",
    "        if False:\n            raise",
)
#: Value iteration's sweep.
SWEEP = '        Q = R + gamma * np.einsum("sta,t->sa", P, V)\n        new = Q.max(axis=1)'


def variant(tmp_path: Path, changes: list[tuple[str, str]], name: str = "ttt_mdp.py") -> Path:
    folder = tmp_path / "student"
    folder.mkdir(exist_ok=True)
    return write_edited(FAITHFUL.read_text(), changes, folder / name)


def test_the_faithful_module_passes_every_check() -> None:
    assert passing(FAITHFUL, "mdp") == {
        "P": 1 + mdp_truth().states,
        "R": mdp_truth().states,
        "iteration": 3,
    }


BUGS = {
    "O's probability 1/9, not 1/len": (
        "P",
        [
            ("P[s, sp, a_X] += 1.0 / float(len(actions_O))", "P[s, sp, a_X] += 1.0 / 9.0"),
            STOCHASTIC,
        ],
        "P[0, :, 0] for s = 0 (.../.../...) and a = 0 sums to 0.888888889, not 1",
    ),
    "an infeasible action moves": (
        "P",
        [("# Impossible action: stay here.\n                P[s, s, a_X]", "P[s, 0, a_X]")],
        "expected 1 to state 1 itself (cell 7 is taken: stay put), got 1 to state 0",
    ),
    "a terminal state restarts the game": (
        "P",
        [("P[s, s, :] = 1.0", "P[s, 0, :] = 1.0")],
        "the draw state) and a = 0: expected 1 to state 338 itself (a terminal state absorbs)",
    ),
    "O may play on X's cell": (
        "P",
        [
            ("actions_O = get_actions(id_X)", "actions_O = get_actions(id)"),
            (
                "id_O = id_X + 2 * (3 ** (8 - a_O))",
                "id_O = board_to_id(np.where(np.arange(9) == a_O, 2, id_to_board(id_X).ravel()))",
            ),
            ("                        if sp < 0:\n", "                        if False:\n"),
        ],
        "0.222222 to state 2 (.../.../.OX), expected 1/4 (0.25) (X plays 0, then O uniformly)",
    ),
    "O's replies not uniform (= for +=, then normalised)": (
        "P",
        [
            (
                "P[s, sp, a_X] += 1.0 / float(len(actions_O))\n",
                "P[s, sp, a_X] = 1.0 / float(len(actions_O))\n"
                "                    P[s, :, a_X] /= P[s, :, a_X].sum()\n",
            )
        ],
        "0.2 to state 2 (.../.../.OX), expected 1/4 (0.25)",
    ),
    "no soft constraint": (
        "R",
        [("R[s, a] = -10.0", "R[s, a] = 0.0")],
        "R[1, 7] = 0 for s = 1 (.../.../.XO) and a = 7: expected -10 (the soft constraint",
    ),
    "the loss rewarded": (
        "R",
        [("reward_vector[-1] = -1.0", "reward_vector[-1] = 1.0")],
        "R[10, 0] = 0.25 for s = 10 (.../..O/XXO) and a = 0: expected -0.25",
    ),
    "value iteration without the discount": (
        "iteration",
        [(SWEEP, SWEEP.replace("R + gamma *", "R + 1.0 *"))],
        "V[0] = 0.994791667 for state 0 (.../.../...): expected 0.792703125 (tttlab's exact "
        "value at gamma 0.9",
    ),
    "value iteration over infeasible actions without the soft constraint": (
        "iteration",
        [(SWEEP, SWEEP.replace("R + gamma *", "np.where(R == -10.0, 0.0, R) + gamma *"))],
        "V[10] = 0.675 for state 10 (.../..O/XXO): expected 0.66375 (tttlab's exact value",
    ),
    "value iteration's policy not greedy": (
        "iteration",
        [("return V, Q.argmax(axis=1)", "return V, (R > -10).argmax(axis=1)")],
        "following the policy from state",
    ),
}


@pytest.mark.parametrize("bug", BUGS)
def test_each_classic_bug_fails_its_own_check(tmp_path: Path, bug: str) -> None:
    check, changes, words = BUGS[bug]
    _, example = failing(variant(tmp_path, changes), check, words)
    assert example.got in example.repro


def test_the_students_own_choices_pass(tmp_path: Path) -> None:
    """float128, the time-greedy rewards, states in another order (terminal ones among
    them) with other representatives, and value iteration alone."""
    relabel = (
        "\nperm = np.random.default_rng(7).permutation(S)\n"
        "inverse = np.argsort(perm)\n"
        "P = P[perm][:, perm]\n"
        "R = R[perm]\n"
        "state_id_lkt = state_id_lkt[perm]\n"
        "kept = id_state_lkt[:, 4] >= 0\n"
        "id_state_lkt[kept, 4] = inverse[id_state_lkt[kept, 4]]\n"
        "\n\n# ---- Value and policy iteration ----"
    )
    path = variant(
        tmp_path,
        [
            ("prec = np.float64", "prec = np.float128"),
            (
                "reward_vector = np.zeros(S, dtype=prec)\n"
                "reward_vector[-2] = 1.0\nreward_vector[-1] = -1.0",
                "reward_vector = np.full(S, -1.0, dtype=prec)\nreward_vector[-2] = 10.0",
            ),
            ("[[info[0], info[1], ids[0, 0]]]", "[[info[0], info[1], ids[-1, 0]]]"),
            ("\n\n# ---- Value and policy iteration ----", relabel),
            ("def policy_iteration(", "def _policy_iteration("),
        ],
    )
    report = check_path(path)
    assert report.ok, report.summary()
    assert report.checks["iteration"].checked == 3


def test_a_module_with_neither_iteration_fails_only_that_check(tmp_path: Path) -> None:
    path = variant(
        tmp_path,
        [
            ("def value_iteration(", "def _value_iteration("),
            ("def policy_iteration(", "def _policy_iteration("),
        ],
    )
    report = check_path(path)
    assert [n for n, c in report.checks.items() if not c.ok] == ["iteration"]
    example = report.checks["iteration"].example
    assert example is not None
    assert example.got == NEITHER
    assert not report.problems


def test_a_notebook_folder_grades_the_script_that_builds_p_and_r(tmp_path: Path) -> None:
    source = FAITHFUL.read_text()
    helpers, script = source.split("# ---- States ----")
    folder = tmp_path / "notebook"
    folder.mkdir()
    (folder / "tic_tac_toe_aux_funcs.py").write_text(helpers)
    (folder / "ttt_mdp.py").write_text(
        "import numpy as np\nfrom tic_tac_toe_aux_funcs import *\n" + script
    )
    report = check_path(folder, only=("P",))
    assert report.ok, report.summary()
    assert report.graded == ("ttt_mdp.py",)
    exercise = MDPTextExercise()
    assert exercise.entry_files(folder) == ([folder / "ttt_mdp.py"], "")
    (folder / "copy.py").write_text(script)
    assert "2 files assign P and R" in exercise.entry_files(folder)[1]
    assert "no .py file" in exercise.entry_files(tmp_path)[1]


def test_renamed_tables_are_found(tmp_path: Path) -> None:
    path = variant(tmp_path, [])
    path.write_text(path.read_text().replace("state_id_lkt", "states_to_ids"))
    report = check_path(path, only=("P",), names={"state_id_lkt": "states_to_ids"})
    assert report.ok, report.summary()


def test_junk_is_wrong_never_a_crash(tmp_path: Path) -> None:
    path = variant(
        tmp_path,
        [
            (
                "\n\n# ---- Value and policy iteration ----",
                "\nP[3, 5, 2] = np.nan\n\n\n# ---- Value and policy iteration ----",
            ),
            ("    V = np.zeros(P.shape[0])\n", "    return 'converged'\n"),
        ],
    )
    report = check_path(path)
    assert report.status == "fail"
    p, iteration = report.checks["P"].example, report.checks["iteration"].example
    assert p is not None
    assert "P[3, 5, 2] = nan" in p.got
    assert iteration is not None
    assert "returned no vector over the 341 states" in iteration.got


def test_notebook_magic_is_explained(tmp_path: Path) -> None:
    path = tmp_path / "ttt_mdp.py"
    path.write_text("%run tic_tac_toe_aux_funcs.py\nP = 0\nR = 0\n")
    report = check_path(path, exercise="mdp")
    assert report.status == "fail"
    assert any("line 1: `%run` is IPython's" in p for p in report.problems), report.problems


# The grader's side alone (no box).


def test_the_exact_distributions_agree_with_tttlabs_mdp() -> None:
    space = state_space(G3)
    opponent = np.zeros((space.size, 9))
    rows = space.decisions(2)
    legal = space.next[rows] >= 0
    opponent[rows] = legal / legal.sum(axis=1, keepdims=True)
    mdp = build_mdp(space, Player.X, opponent)
    boards = ["".join(".XO"[c] for c in space.boards[i]) for i in mdp.positions.tolist()]
    keys = [canonical(b) for b in boards] + list(ENDS)
    assert keys[:-3] == list(mdp_truth().keys)
    assert mdp.n_states == mdp_truth().states == 341
    for s, board in enumerate(boards):
        for a in range(9):
            if board[a] != ".":
                continue
            row = mdp.P[a].getrow(s)
            theirs: dict[str, float] = {}
            for t, p in zip(row.indices.tolist(), row.data.tolist(), strict=True):
                theirs[keys[t]] = theirs.get(keys[t], 0.0) + p
            ours = after(board, a)
            assert ours.keys() == theirs.keys()
            assert all(abs(ours[k] - theirs[k]) < 1e-12 for k in ours)


#: The reward of entering each kind of state, per scheme (the text's), restated here.
REWARDS = {
    "standard": {"win": 1.0, "loss": -1.0, "draw": 0.0, "state": 0.0},
    "time-greedy": {"win": 10.0, "loss": -1.0, "draw": -1.0, "state": -1.0},
}


def test_the_exact_values_and_a_policy_evaluated() -> None:
    truth = mdp_truth()
    start = canonical("." * 9)
    standard = truth.values[("standard", 1.0)]
    assert Fraction(standard[start]).limit_denominator(1000) == Fraction(191, 192)
    for gamma in (0.9, 1.0):
        for scheme, rewards in REWARDS.items():
            best = truth.values[(scheme, gamma)]
            # the greedy move from the exact values, in every state: optimal everywhere
            moves = {}
            for k in truth.keys:
                q = {
                    a: sum(
                        p * (rewards.get(t, rewards["state"])) + p * gamma * best[t]
                        for t, p in after(k, a).items()
                    )
                    for a in range(9)
                    if k[a] == "."
                }
                moves[k] = (k, max(q, key=q.__getitem__))
            worth = evaluate(moves, scheme, gamma)
            assert all(abs(worth[k] - best[k]) < 1e-9 for k in truth.keys)
    first_cell = {k: (k, k.index(".")) for k in truth.keys}
    assert evaluate(first_cell, "standard", 1.0)[start] < standard[start] - 0.01


def test_the_sizes_and_words() -> None:
    assert count_finding([341, 338, 3, [341, 341, 9], [341, 9]]) is None
    found = count_finding([340, 337, 3, [340, 340, 9], [340, 9]])
    assert found is not None
    assert "expected 341 (338 + draw, win, loss)" in found.text
    found = count_finding([341, 338, 3, [341, 9, 341], [341, 9]])
    assert found is not None
    assert found.text == "P is 341 x 9 x 341, expected 341 x 341 x 9"
    assert fraction(1 / 7) == "1/7 (0.142857)"
    assert fraction(0.3) == "3/10 (0.3)"
    assert fraction(1.0) == "1"
    assert scheme_of(10.0) == "time-greedy"
    assert scheme_of(1.0) == scheme_of(None) == "standard"


def state_answer(s: int, board: str) -> list[Any]:
    """What the box reads for state ``s`` of a right MDP numbered as tttlab numbers it:
    the state's row, no id_state_lkt, each action's entries, the targets' rows."""
    truth = mdp_truth()
    number = {k: i for i, k in enumerate([*truth.keys, *ENDS])}
    rows = {i: [0, 1, text_id(k)] for i, k in enumerate(truth.keys)}
    rows.update({truth.decisions + w: [1, w, -1 - w] for w in range(3)})
    actions = []
    for a in range(9):
        found = after(board, a) if board[a] == "." else {"": 1.0}
        entries: list[list[Any]] = sorted([number.get(k, s), p] for k, p in found.items())
        actions.append([entries, len(entries), sum(p for _, p in entries)])
    targets = sorted({t for entries, _, _ in actions for t, _ in entries})
    return [[0, 1, text_id(board)], None, actions, [[t, rows[t]] for t in targets]]


def test_what_is_wrong_with_a_state_in_words() -> None:
    start = mdp_truth().keys.index(canonical("." * 9))
    assert start == 0
    board = "X...O...."
    s = mdp_truth().keys.index(canonical(board))
    right = state_answer(s, board)
    assert state_finding("P", s, right) is None
    assert state_finding("R", s, [*right, [0.0] * 9]) is not None  # no soft constraint

    def wrong(change: Callable[[list[Any]], None]) -> str:
        answer = copy.deepcopy(right)
        change(answer)
        found = state_finding("P", s, answer)
        assert found is not None
        assert found.board in ("", board)
        return found.text

    def no_row(answer: list[Any]) -> None:
        answer[3][0][1] = None

    def bad_type(answer: list[Any]) -> None:
        answer[0][0] = 2

    def o_to_move(answer: list[Any]) -> None:
        answer[0][2] = text_id("X........")

    def elsewhere(answer: list[Any]) -> None:
        answer[1] = s + 1

    def negative(answer: list[Any]) -> None:
        answer[2][1][0][0][1] = -0.5

    def too_many(answer: list[Any]) -> None:
        answer[2][1][1] = 40

    assert "has no row in state_id_lkt" in wrong(no_row)
    assert "its type must be 0 (X to move) or 1 (terminal)" in wrong(bad_type)
    assert "is not a position where X is to move" in wrong(o_to_move)
    assert f"id_state_lkt gives state {s + 1} for board" in wrong(elsewhere)
    assert "is negative" in wrong(negative)
    assert "40 nonzero entries" in wrong(too_many)
