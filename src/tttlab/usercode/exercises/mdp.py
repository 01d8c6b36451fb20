"""The MDP text (seed 004): tic-tac-toe for X against a uniformly random O as an MDP, built
at the module's top level (a notebook exported as a script): the state tables
``state_id_lkt`` (per state: type 0 or 1 for terminal, the winner or the next player, a
board id) and ``id_state_lkt`` (per board id: ..., the state last), the transitions ``P``
(S × S × A) and the rewards ``R`` (S × A); and, where the module defines them,
``value_iteration(P, R, gamma)`` and ``policy_iteration(P, R, gamma)``.

The module runs in the box (``load`` "import"); the box reads the tables as they are
(:mod:`tttlab.usercode.boxside.shapes.mdp`), and the grader maps the student's own
numbering of the states through the student's own ``state_id_lkt`` to boards, and judges
each entry against the exact MDP (:mod:`.mdp_truth`):

- **P**: the number of states (338 positions where X moves, up to symmetry, plus the
  draw, win and loss states: 341) and the arrays' shapes; then for each state and each
  action, ``P[s, :, a]`` is stochastic and is the exact distribution of the next state
  against a uniformly random O (a target's own row says which position or terminal state
  it is; its order is the student's); an infeasible action stays put, and a terminal state
  absorbs. When ``id_state_lkt`` is defined, it must give each state back for its board.
- **R**: ``R[s, a]`` is the reward of entering the next state, summed over the student's
  own ``P[s, :, a]`` (so that a wrong P is the P check's alone), with the text's standard
  rewards (+1 win, −1 loss, 0 otherwise) or its time-greedy option (−1 a move, +10 a win):
  each state's row must be right under one of them; an infeasible action has any negative
  reward (the soft constraint: the text's words say "e.g. -1", its code −10; 0 or more is
  wrong), and a terminal state 0. A note names the rewards and the soft constraint found.
- **iteration** (optional: the text stops at P and R; a module that defines neither has
  this check skipped, in a note): ``value_iteration`` at gamma 0.9 and 1 and
  ``policy_iteration`` at 0.9 (a linear solve is singular at 1), as the module defines
  them: either is enough (the other's calls pass as not defined). Each is called as its
  signature asks (:mod:`tttlab.usercode.boxside.shapes.mdp_call`: the text's authors'
  ``(P, R, gamma, v_init[, pi_init], tol=1e-6)``, a number of sweeps, no discount...) and
  what it returns is told apart by what it holds (:mod:`.mdp_iteration`): values, a
  policy, or both in either order, as arrays, lists or dicts. The values must be the
  optimal values of the text's MDP under the rewards R holds within 1e-6 (the game ends
  within five of X's moves, so value iteration is exact after a few sweeps); the policy is
  evaluated exactly and must be optimal in every state. A note names each adaptation.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from . import base
from .base import Case, Exercise, Form
from .mdp_iteration import iteration_finding, iteration_notes
from .mdp_judge import TOLERANCE, Finding, count_finding, decode, scheme_of, state_finding
from .mdp_truth import ENDS, GAMMAS, SCHEME_WORDS, mdp_truth

if TYPE_CHECKING:
    from tttlab.usercode.cases import ExerciseTruth
    from tttlab.usercode.report import CheckReport

__all__ = ["ITERATION", "ITERATIONS", "NEITHER", "MDPTextExercise"]

#: Either iteration: the name that the iteration check needs.
ITERATION = "value_iteration|policy_iteration"

#: What the iteration check says of a module that defines neither iteration, where only
#: that check was asked for (otherwise it is skipped, in a note).
NEITHER = (
    "does not define value_iteration or policy_iteration (either is checked: "
    "f(P, R, gamma, ...) returning the values, the policy, or both)"
)

#: The iteration check's calls: each function and discount.
ITERATIONS = (
    *(("value_iteration", g) for g in GAMMAS),
    ("policy_iteration", GAMMAS[0]),
)

_INT, _FLOAT = base.kind(int), base.kind(float)
_ROW = base.row(_INT, _INT, _INT)
_NONE = base.one_of(None)
_ACTION = base.row(base.listing(base.row(_INT, _FLOAT)), _INT, _FLOAT)
_TARGET = base.row(_INT, base.either(_NONE, _ROW))
_STATE = base.row(_ROW, base.either(_NONE, _INT), base.listing(_ACTION), base.listing(_TARGET))
_COUNT = base.row(_INT, _INT, _INT, base.listing(_INT), base.listing(_INT))
_STATE_R = base.row(
    _ROW,
    base.either(_NONE, _INT),
    base.listing(_ACTION),
    base.listing(_TARGET),
    base.listing(_FLOAT),
)
_TEXT = base.kind(str)
_ITERATED = base.either(
    base.one_of("absent", "neither"),
    base.row(base.one_of("unfilled"), _TEXT, _TEXT),
    base.row(
        base.listing(base.either(_NONE, _ROW)),
        base.listing(base.row(base.kind(bool), base.listing(_FLOAT))),
        base.listing(base.either(_NONE, base.listing(base.either(_NONE, _FLOAT)))),
        base.row(_TEXT, base.kind(bool), base.listing(base.row(_TEXT, _TEXT)), _TEXT),
    ),
)
_RUN_MAGIC = re.compile(r"^\s*(%run\b.*|get_ipython\(\).*)$", re.M)


class MDPTextExercise(Exercise):
    """The MDP text's P, R and their iterations, read after the module has run."""

    key = "mdp"
    functions = ("P", "R", "iteration")
    names = ("P", "R", "state_id_lkt", ITERATION)
    #: The text stops at P and R: a module that defines neither iteration has that check
    #: skipped, in a note.
    optional = (ITERATION,)
    #: Optional (the text's is built in its loop; the check reads it where it is there).
    attributes = ("id_state_lkt",)
    needs: ClassVar[dict[str, tuple[str, ...]]] = {
        "P": ("P", "state_id_lkt"),
        "R": ("P", "R", "state_id_lkt"),
        "iteration": ("P", "R", "state_id_lkt", ITERATION),
    }
    #: No count of arguments fits every iteration (3 to 6 of them), and a module that
    #: defines neither is skipped, its report maybe a pass: a suggestion there would be a
    #: problem line on a pass, which a report refuses. None is suggested (no arity is -1).
    arity: ClassVar[dict[str, int]] = {"value_iteration": -1, "policy_iteration": -1}
    load = "import"
    answer_limits: ClassVar[dict[str, int]] = {"P": 16_384, "R": 16_384, "iteration": 1 << 19}
    forms: ClassVar[dict[str, Form]] = {
        "P": base.either(_COUNT, _STATE),
        "R": _STATE_R,
        "iteration": _ITERATED,
    }

    def entry_files(self, folder: Path) -> tuple[list[Path], str]:
        """The one .py file of ``folder`` that assigns ``P`` and ``R`` at its top level
        (the notebook's script; its helper modules are imported from it)."""
        found = [p for p in sorted(folder.glob("*.py")) if _assigns(p, ("P", "R"))]
        return base.one_entry(
            found,
            "no .py file in it assigns P and R at its top level",
            "{n} files assign P and R at their top level ({listed})",
        )

    def cases(self, truth: ExerciseTruth) -> dict[str, list[Case]]:
        states = mdp_truth().states
        empty = "." * 9
        return {
            "P": [Case(empty, 0, "count")] + [Case(empty, s + 1, s) for s in range(states)],
            "R": [Case(empty, s, s) for s in range(states)],
            "iteration": [Case(empty, k, c) for k, c in enumerate(ITERATIONS)],
        }

    def payload(self, function: str, case: Case) -> Any:
        return list(case.arg) if function == "iteration" else case.arg

    def finding(self, function: str, case: Case, outcome: list[Any]) -> Finding | None:
        """What is wrong with a value that came back, or None (right)."""
        value = outcome[1]
        if function == "iteration":
            if value == "absent":
                return None
            if value == "neither":
                return Finding(NEITHER)
            name, gamma = case.arg
            return iteration_finding(name, gamma, value)
        if case.arg == "count":
            return count_finding(value) if len(value) == 5 else Finding("not the sizes")
        if len(value) != (5 if function == "R" else 4):
            return Finding("not one state's entries")
        return state_finding(function, case.arg, value)

    def right(self, function: str, case: Case, outcome: list[Any], truth: ExerciseTruth) -> bool:
        if outcome[0] != "v" or base.garbage(outcome[1]) is not None:
            return False
        return self.finding(function, case, outcome) is None

    def expected(self, function: str, case: Case, truth: ExerciseTruth) -> str:
        mdp = mdp_truth()
        if function == "iteration":
            return (
                "tttlab's exact optimal values and an optimal policy (values within "
                f"{TOLERANCE['iteration']:g})"
            )
        if case.arg == "count":
            return (
                f"{mdp.states} states ({mdp.decisions} positions where X moves, up to "
                f"symmetry, + draw, win, loss); P {mdp.states} x {mdp.states} x 9, "
                f"R {mdp.states} x 9"
            )
        if function == "R":
            return (
                "the reward of entering the next state, summed over P[s, :, a]; a negative "
                "reward for an infeasible action (the soft constraint: the text's words say "
                "-1, its code -10); 0 at a terminal state"
            )
        return (
            "for each action, the exact distribution of the next state against a uniformly "
            "random O; an infeasible action stays put; a terminal state absorbs"
        )

    def notes(self, cases: dict[str, list[Case]], results: dict[str, list[list[Any]]]) -> list[str]:
        """How the module was read, a note each: the rewards and the soft constraint that R
        holds, and how each iteration was called and what it returned (where that is not
        ``f(P, R, gamma)`` returning ``(values, policy)``)."""
        found: list[str] = []
        for function, planned in cases.items():
            said = self._notes(function, planned, results.get(function, []))
            found += [n for n in said if n not in found]
        return found

    def _notes(self, function: str, cases: list[Case], outcomes: list[list[Any]]) -> list[str]:
        answered = [
            (case, o[1])
            for case, o in zip(cases, outcomes, strict=False)
            if o[:1] == ["v"] and self.well_formed(function, o[1]) and not base.garbage(o[1])
        ]
        if function == "R":
            return _reward_note([v for _, v in answered if len(v) == 5])
        found: list[str] = []
        if function == "iteration":
            for case, value in answered:
                if isinstance(value, list):
                    found += [n for n in iteration_notes(case.arg[1], value) if n not in found]
        return found

    def answer(self, function: str) -> str:
        return {"P": "row of P", "R": "row of R"}.get(function, "result")

    def shown(self, function: str, outcome: list[Any], case: Case, truth: ExerciseTruth) -> str:
        found = self.finding(function, case, outcome)
        return found.text if found is not None else "right"

    def board_shown(self, function: str, case: Case, outcome: list[Any]) -> str:
        """The board of the state where the first wrong entry is (none for the sizes, a
        terminal state, or a value that is no answer)."""
        if outcome[0] != "v" or base.garbage(outcome[1]) is not None:
            return ""
        found = self.finding(function, case, outcome)
        return found.board if found is not None else ""

    def call(self, function: str, case: Case) -> str:
        if function == "iteration":
            name, gamma = case.arg
            return f"{name}(P, R, {gamma:g}, ...) (the rest as its signature asks)"
        if case.arg == "count":
            return "len(state_id_lkt), P.shape, R.shape"
        if function == "R":
            return f"R[{case.arg}, :]"
        return f"P[{case.arg}, :, a] for every action a"

    def repro(self, function: str, case: Case, expected: str, got: str) -> str:
        return f"after the module has run: {self.call(function, case)}: {got}"

    def hints(self, sources: dict[str, str], report: CheckReport) -> list[str]:
        """IPython's ``%run`` in a script exported from a notebook."""
        if report.status == "pass":
            return []
        found = []
        for name, text in sources.items():
            magic = _RUN_MAGIC.search(text)
            if magic:
                line = text.count("\n", 0, magic.start()) + 1
                found.append(
                    f"{name} line {line}: `%run` is IPython's, not Python's: in a script, "
                    "import the helper module (from tic_tac_toe_aux_funcs import *)"
                )
        return found


def _reward_note(values: list[list[Any]]) -> list[str]:
    """The rewards that R holds and its soft constraint, as read from each state's row."""
    soft: list[float] = []
    feasible: list[float] = []
    for row, *_, rewards in values:
        key, board, trouble = decode(row)
        if trouble or key in ENDS or len(rewards) != 9:
            continue
        soft += [v for a, v in enumerate(rewards) if board[a] != "." and v < -TOLERANCE["R"]]
        feasible += [v for a, v in enumerate(rewards) if board[a] == "."]
    if not soft:
        return []
    low, high = min(soft), max(soft)
    same = high - low <= TOLERANCE["R"]
    constraint = f"{high:g}" if same else f"from {low:g} to {high:g} (not the same everywhere)"
    scheme = SCHEME_WORDS[scheme_of(max(feasible, default=None))]
    return [f"R: {scheme}; the soft constraint {constraint} for an infeasible move"]


def _assigns(path: Path, names: tuple[str, ...]) -> bool:
    """Whether the file assigns every one of ``names`` at its top level."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return all(re.search(rf"^{n}\s*=", text, flags=re.M) for n in names)
    assigned: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                assigned |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return set(names) <= assigned
