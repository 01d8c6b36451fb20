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
  each state's row must be right under one of them; −10 for an infeasible action (the
  soft constraint) and 0 at a terminal state.
- **iteration**: ``value_iteration(P, R, gamma)`` at gamma 0.9 and 1 and
  ``policy_iteration(P, R, gamma)`` at 0.9 (its linear systems are singular at 1), as the
  module defines them: either is enough (the other's calls pass as not defined), and a
  module with neither fails this check alone (the text defines neither: its own solver is
  elsewhere). What they return holds the values (a float vector over the states), the
  greedy policy (an integer vector: a cell of each state's board), or both (a tuple or
  list, a dict or an object with ``V`` and ``policy``). The values must be tttlab's exact
  optimal values (:func:`tttlab.planning.policy_iteration` on the text's MDP) within 1e-6,
  under the rewards that R holds (time-greedy when an entry of R is above 1, else
  standard): the game ends within five of X's moves, so value iteration is exact after a
  few sweeps. The policy is evaluated exactly and must be optimal in every state.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from . import base
from .base import Case, Exercise, Form
from .mdp_judge import TOLERANCE, Finding, count_finding, iteration_finding, state_finding
from .mdp_truth import GAMMAS, mdp_truth

if TYPE_CHECKING:
    from tttlab.usercode.cases import ExerciseTruth
    from tttlab.usercode.report import CheckReport

__all__ = ["ITERATIONS", "NEITHER", "MDPTextExercise"]

#: What the iteration check says of a module that defines neither iteration.
NEITHER = (
    "does not define value_iteration or policy_iteration (either is checked: "
    "f(P, R, gamma) returning the values, the policy, or both)"
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
_ITERATED = base.either(
    base.one_of("absent", "neither"),
    base.row(
        base.listing(base.either(_NONE, _ROW)),
        base.listing(base.row(base.kind(bool), base.listing(_FLOAT))),
        base.either(_NONE, _FLOAT),
    ),
)
_RUN_MAGIC = re.compile(r"^\s*(%run\b.*|get_ipython\(\).*)$", re.M)


class MDPTextExercise(Exercise):
    """The MDP text's P, R and their iterations, read after the module has run."""

    key = "mdp"
    functions = ("P", "R", "iteration")
    names = ("P", "R", "state_id_lkt")
    #: Optional (the text defines neither iteration): renamable, never missing.
    attributes = ("id_state_lkt", "value_iteration", "policy_iteration")
    needs: ClassVar[dict[str, tuple[str, ...]]] = {
        "P": ("P", "state_id_lkt"),
        "R": ("P", "R", "state_id_lkt"),
        "iteration": ("P", "R", "state_id_lkt"),
    }
    arity: ClassVar[dict[str, int]] = {"value_iteration": 3, "policy_iteration": 3}
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
                "the reward of entering the next state, summed over P[s, :, a]; -10 for an "
                "infeasible action, 0 at a terminal state"
            )
        return (
            "for each action, the exact distribution of the next state against a uniformly "
            "random O; an infeasible action stays put; a terminal state absorbs"
        )

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
            return f"{name}(P, R, {gamma:g})"
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
