"""``ttt check`` on the MDP text's module (seed 004): a faithful copy passes every check,
each classic bug fails the check that names the part holding it, and the student's own
choices (the order of the states, their representatives, float128, the time-greedy
rewards, one iteration of the two) pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.usercode.helpers import failing_here, passing, write_edited
from tttlab.usercode.exercises.mdp import MDPTextExercise
from tttlab.usercode.exercises.mdp_truth import (
    mdp_truth,
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
        "R[1, 7] = 0 for s = 1 (.../.../.XO) and a = 7: expected a negative reward (the soft "
        "constraint: cell 7 is taken)",
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
    _, example = failing_here(variant(tmp_path, changes), "mdp", check, words)
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


def test_values_and_a_policy_returned_as_dicts_pass(tmp_path: Path) -> None:
    """``{state: value}`` and ``{state: action}``, as a student keeps them (the review's
    reproductions: the policy's keys were read as the policy)."""
    path = variant(
        tmp_path,
        [
            (
                "    return V, Q.argmax(axis=1)\n",
                "    policy = Q.argmax(axis=1).tolist()\n"
                "    return dict(enumerate(V.tolist())), dict(enumerate(policy))\n",
            ),
        ],
    )
    report = check_path(path, only=("iteration",))
    assert report.ok, report.summary()


def test_a_module_with_neither_iteration_has_that_check_skipped_in_a_note(tmp_path: Path) -> None:
    """The text stops at P and R: the iteration check is optional, like the course's
    ``play_game``; asked for alone, it is required. The functions renamed with a leading
    underscore are near misses of the names (no suggestion may turn the pass into a crash)."""
    path = variant(
        tmp_path,
        [
            ("def value_iteration(", "def _value_iteration("),
            ("def policy_iteration(", "def _policy_iteration("),
        ],
    )
    report = check_path(path)
    assert report.status == "pass", report.summary()
    assert list(report.checks) == ["P", "R"]
    assert any(n.endswith("not defined: iteration not checked") for n in report.notes)
    alone = check_path(path, only=("iteration",))
    assert alone.status == "fail"
    assert "does not define: value_iteration or policy_iteration" in alone.problems


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
    report = check_path(path, only=("P", "iteration"))
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
