"""The honest ways students write the MDP text's module (seed 004) pass ``ttt check``, each
adaptation named in a note, and the bugs written in those same ways still fail.

The variants share one builder of the tables (``corpus/mdp_variants/tables.py``, changed
by :func:`~tests.usercode.helpers.edited` for a table variant) and differ in the iteration
appended to it (one file of the folder each). They are judged in this process through the
shape's own side of the box (:func:`answered_here`); one runs through the real box.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from tests.usercode.helpers import edited, load_module
from tttlab.usercode.boxside.loading import guarded
from tttlab.usercode.boxside.shapes import CHILDREN
from tttlab.usercode.cases import exercise_truth
from tttlab.usercode.exercises import EXERCISES
from tttlab.usercode.grading import check_path
from tttlab.usercode.report import FunctionCheck
from tttlab.usercode.sandbox import RawRun
from tttlab.usercode.verdict import _grade

CORPUS = Path(__file__).parent / "corpus" / "mdp_variants"
TABLES = (CORPUS / "tables.py").read_text()
ITERATION = "# ---- iteration ----\n"
_LOADED = itertools.count()
Changes = tuple[tuple[str, str], ...]


def student(tmp_path: Path, iteration: str, changes: Changes = ()) -> Path:
    """The tables with the iteration of ``iteration`` (a file of the corpus), changed."""
    path = tmp_path / "ttt_mdp.py"
    path.write_text(edited(TABLES + (CORPUS / iteration).read_text(), list(changes)))
    return path


def answered_here(path: Path, *checks: str) -> dict[str, tuple[FunctionCheck, list[str]]]:
    """Each of ``checks`` on the module at ``path``, loaded here once and called through the
    shape's side of the box, each answer carried through JSON: its result, judged by the
    verdict's own ``_grade``, and the notes the exercise writes of it."""
    spec = EXERCISES["mdp"]
    child = CHILDREN["mdp"](load_module(path, f"mdp_variant_{next(_LOADED)}"), {})
    found = {}
    for check in checks:
        cases = spec.cases(exercise_truth())[check]
        outcomes: list[list[Any]] = []
        for case in cases:
            outcome = child.call(check, spec.payload(check, case), lambda f, *a: guarded(f, a, 20))
            outcomes.append(json.loads(json.dumps(outcome)))
        result = _grade(spec, check, cases, RawRun(results={check: outcomes}), exercise_truth())
        found[check] = (result, spec.notes({check: cases}, {check: outcomes}))
    return found


#: Each way of writing the iterations, and the note it gets ([] for none).
ITERATIONS = {
    "authors_library.py": [
        "value_iteration(P, R, gamma, v_init, tol=1e-06): v_init given zeros; returned the "
        "policy, then the values (a tuple of 2; told apart by what they hold)",
        "policy_iteration(P, R, gamma, v_init, pi_init, tol=1e-06): v_init given zeros, "
        "pi_init given a feasible policy; returned the policy, then the values (a tuple of 2; "
        "told apart by what they hold)",
    ],
    "values_first.py": [],
    "dict_result.py": [
        "value_iteration(P, R, gamma, epsilon=1e-09, max_iterations=1000): returned the "
        "values, then the policy (a dict (values, policy); told apart by what they hold)"
    ],
    "policy_only.py": [
        "policy_iteration(P, R, gamma): returned the policy (one vector; told apart by what "
        "they hold)"
    ],
    "values_only.py": [
        "value_iteration(P, R, gamma): returned the values (one vector; told apart by what "
        "they hold)"
    ],
    "fixed_sweeps.py": ["value_iteration(P, R, gamma, n_sweeps): n_sweeps given 100"],
    "undiscounted.py": [
        "value_iteration(P, R, v0, epsilon=1e-09): v0 given zeros; it takes no discount: "
        "judged at gamma 1; returned the policy, then the values (a tuple of 2; told apart "
        "by what they hold)",
        "policy_iteration(P, R, v0, pi0, theta=1e-09): v0 given zeros, pi0 given a feasible "
        "policy; it takes no discount: judged at gamma 1; returned the policy, then the "
        "values (a tuple of 2; told apart by what they hold)",
    ],
    "result_object.py": [
        "value_iteration(P, R, *, discount=0.5, theta=1e-10, max_sweeps=10000): returned the "
        "values, then the policy (an object's attributes; told apart by what they hold)"
    ],
}


@pytest.mark.parametrize("iteration", ITERATIONS)
def test_each_way_of_writing_the_iterations_passes_named_in_a_note(
    tmp_path: Path, iteration: str
) -> None:
    result, notes = answered_here(student(tmp_path, iteration), "iteration")["iteration"]
    assert result.ok, result.example
    assert notes == ITERATIONS[iteration]


#: The tables written otherwise, each with an iteration that fits them, and the checks that
#: read what changed with the notes each gets.
STANDARD = "standard rewards: +1 win, -1 loss, 0 otherwise"
TIME_GREEDY = (
    '{"state": 0.0, "draw": 0.0, "win": 1.0, "loss": -1.0}',
    '{"state": -1.0, "draw": -1.0, "win": 10.0, "loss": -1.0}',
)
TEN = f"R: {STANDARD}; the soft constraint -10 for an infeasible move"
TABLE_VARIANTS: dict[str, tuple[Changes, str, dict[str, list[str]]]] = {
    "the text's words' soft constraint, -1": (
        (("SOFT = -10.0", "SOFT = -1.0"),),
        "values_first.py",
        {
            "R": [f"R: {STANDARD}; the soft constraint -1 for an infeasible move"],
            "iteration": [],
        },
    ),
    "the time-greedy rewards with a soft constraint of -1": (
        (("SOFT = -10.0", "SOFT = -1.0"), TIME_GREEDY),
        "authors_library.py",
        {
            "R": [
                "R: time-greedy rewards: -1 a move, +10 a win; the soft constraint -1 for an "
                "infeasible move"
            ],
            "iteration": ITERATIONS["authors_library.py"],
        },
    ),
    "a soft constraint too weak to forbid staying put (-0.05)": (
        (("SOFT = -10.0", "SOFT = -0.05"), TIME_GREEDY),
        "values_first.py",
        {
            "R": [
                "R: time-greedy rewards: -1 a move, +10 a win; the soft constraint -0.05 for "
                "an infeasible move"
            ],
            "iteration": [
                "R's soft constraint is too weak to forbid staying put at gamma 0.9 (in state "
                "138, R[138, 2] = -0.05 forever is worth -0.5): judged by the optimum, which "
                "stays put there"
            ],
        },
    ),
    "float128 (the text's precision)": (
        (("PREC = np.float64", "PREC = np.longdouble"),),
        "values_first.py",
        {"P": [], "R": [TEN], "iteration": []},
    ),
    "P and R as nested lists": (
        ((ITERATION, "P = P.tolist()\nR = R.tolist()\n" + ITERATION),),
        "python_lists.py",
        {"P": [], "R": [TEN], "iteration": []},
    ),
    "the lookup tables as dicts": (
        (
            (
                ITERATION,
                "state_id_lkt = {s: tuple(int(x) for x in row) for s, row in "
                "enumerate(state_id_lkt)}\n"
                "id_state_lkt = {i: row for i, row in enumerate(id_state_lkt.tolist()) "
                "if row[4] >= 0}\n" + ITERATION,
            ),
        ),
        "values_first.py",
        {"P": [], "iteration": []},
    ),
}


@pytest.mark.parametrize("variant", TABLE_VARIANTS)
def test_each_way_of_writing_the_tables_passes_named_in_a_note(
    tmp_path: Path, variant: str
) -> None:
    changes, iteration, notes = TABLE_VARIANTS[variant]
    found = answered_here(student(tmp_path, iteration, changes), *notes)
    for check, (result, said) in found.items():
        assert result.ok, (check, result.example)
        assert said == notes[check], check


def test_the_authors_library_in_float128_with_soft_constraint_minus_one_passes_in_its_box(
    tmp_path: Path,
) -> None:
    path = student(
        tmp_path,
        "authors_library.py",
        (("PREC = np.float64", "PREC = np.longdouble"), ("SOFT = -10.0", "SOFT = -1.0")),
    )
    report = check_path(path)
    assert report.status == "pass", report.summary()
    assert report.checks["iteration"].checked == 3


#: The bugs written in these ways: the check, the iteration, the change to the student's
#: file, the words of the counterexample.
BUGS: dict[str, tuple[str, str, Changes, str]] = {
    "the soft constraint of the wrong sign": (
        "R",
        "values_first.py",
        (("SOFT = -10.0", "SOFT = 1.0"),),
        "R[1, 7] = 1 for s = 1 (.../.../.OX) and a = 7: expected a negative reward (the soft "
        "constraint: cell 7 is taken)",
    ),
    "policy iteration that returns the policy it was given": (
        "iteration",
        "authors_library.py",
        (
            (
                "        if np.array_equal(better, pi):\n            return pi, v",
                "        if True:\n            return np.copy(pi_init), v",
            ),
        ),
        "V[0] = 0.3432375 for state 0 (.../.../...): expected 0.792703125 (tttlab's exact "
        "value at gamma 0.9",
    ),
    "value iteration that returns the values it was given": (
        "iteration",
        "undiscounted.py",
        (
            (
                "            return Q.argmax(axis=1), new",
                "            return Q.argmax(axis=1), np.array(v0, dtype=float)",
            ),
        ),
        "V[0] = 0 for state 0 (.../.../...): expected 0.994791667",
    ),
    "a discount hidden in a function that takes none": (
        "iteration",
        "undiscounted.py",
        (('Q = R + np.einsum("sta,t->sa", P, V)', 'Q = R + 0.5 * np.einsum("sta,t->sa", P, V)'),),
        "(it takes no discount: judged undiscounted)",
    ),
    "fewer sweeps than asked for": (
        "iteration",
        "fixed_sweeps.py",
        (("for k in range(n_sweeps):", "for k in range(1):"),),
        "V[0] = 0 for state 0 (.../.../...): expected 0.792703125",
    ),
    "the policy kept as floats, the worst move": (
        "iteration",
        "authors_library.py",
        (("            return pi, new", "            return 8 - pi, new"),),
        "policy[2] = 8 for state 2 (.../.../X.O): that cell is taken",
    ),
}


@pytest.mark.parametrize("bug", BUGS)
def test_each_bug_written_these_ways_fails(tmp_path: Path, bug: str) -> None:
    check, iteration, changes, words = BUGS[bug]
    result, _ = answered_here(student(tmp_path, iteration, changes), check)[check]
    assert result.status == "fail"
    assert result.example is not None
    assert words in result.example.got, result.example.got
