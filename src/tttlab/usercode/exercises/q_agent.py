"""The Q-learning text's ``Agent`` (seed 003), on the student's own ``Board``: the grader's
side (the box's: :mod:`tttlab.usercode.boxside.shapes.q_agent`). The text's conventions are
the truth: states are strings of ``"0"``, ``"1"`` (X) and ``"2"`` (O), ``q[state][action]``
is from X's side, X (``True``) maximises it and O (``False``) minimises it.

- ``add_state``: two states added one after the other; each ``q[state]`` holds exactly the
  open actions at 0.0, in a dict of its own, and both states are in ``states``.
- ``best_action``: on every decision state (4,520), with a random row of ``q`` (a third of
  them with ties), the player to move gets an action of largest value (X) or smallest (O).
- ``choose_action``: greedy at ε = 0 on every decision state, as ``best_action``; and on one
  board of each ply (9 open cells down to 2), 5,000 calls at ε = 1 spread uniformly over
  the open cells and at ε = 0.25 with the greedy cell's extra share, by a chi-square test
  whose false alarms are at most 1e-6 per check.
- ``qlearning`` and ``sarsa``: ``qlearning(1)`` / ``sarsa(1)`` from a random table, 40
  calls each over five settings of ε, γ and α (half of them with a quarter of the states
  left out, for the code to add), then calls of several episodes (:mod:`.q_agent_learning`): the
  moves it passed to ``Board.play`` are that many games, each from the empty board, each
  move leaving the mover's mark in its cell (in whatever form the code gives the marks to
  its own ``Board``); at ε = 0 each move is the mover's greedy one, and every entry of ``q``
  is the text's update along the games (:mod:`.q_agent_episodes`); at ε > 0 the moves of
  the calls of many episodes follow the ε-greedy shares (:mod:`.q_agent_shares`: a test
  whose false alarms are at most 1e-6 per check, exactly).

The agent is built as its own constructor takes epsilon, discount and alpha, by their
names or in the text's order (:mod:`tttlab.usercode.boxside.shapes.q_agent_built`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..boxside.shapes.q_agent import digits, open_cells, values
from . import base
from .base import GARBAGE, Case, Exercise, Form
from .q_agent_episodes import Wrong, number
from .q_agent_learning import (
    learning_call,
    learning_cases,
    learning_expected,
    learning_wrong,
    mark_notes,
)

if TYPE_CHECKING:
    from tttlab.usercode.cases import ExerciseTruth

__all__ = ["QAgentExercise"]

#: Calls of ``choose_action`` per board of the statistical cases, and their ε.
CALLS = 5000
SPREAD = (1.0, 0.25)
#: The plies of those boards (the first decision board of each in report order): 9 open
#: cells down to 2.
PLIES = range(8)
#: The chi-square tests' false-alarm rate for the whole check, nominal, shared evenly among
#: its 16 cases. The test's approximation is off in the far tail: at 5,000 calls the true
#: rate of these cases is at most about twice the nominal one (exact for 2 open cells,
#: importance-sampled for 3 to 9), so a tenth of the 1e-6 promised keeps false alarms below it.
ALARM = 1e-7
_SEEDS = {"best_action": 100_000, "choose_action": 200_000, "qlearning": 400_000, "sarsa": 500_000}

_MAYBE_BOOL = base.either(base.kind(bool), GARBAGE)
_ROW = base.either(base.listing(base.row(base.kind(int), base.kind(float))), GARBAGE)
_STATE = base.either(base.kind(str), GARBAGE)
_CELL = base.either(base.kind(int), GARBAGE)
_EPISODE = base.row(
    base.listing(base.row(_STATE, _CELL, base.kind(str), _STATE)),
    base.listing(base.row(_STATE, _CELL, base.either(base.kind(float), GARBAGE))),
    base.listing(base.row(base.kind(str), base.kind(int))),
    base.listing(_STATE),
    base.listing(base.kind(str)),
    base.row(*(base.kind(int),) * 5),
)
_COUNTS = base.row(base.listing(base.kind(int)), base.kind(int))


def _who(player: bool) -> str:
    return "X (True)" if player else "O (False)"


def _cells(cells: list[int]) -> str:
    return (
        ", ".join(str(c) for c in cells[:-1]) + (" or " if len(cells) > 1 else "") + str(cells[-1])
    )


def _row_text(row: dict[int, float]) -> str:
    return "{" + ", ".join(f"{c}: {round(v, 4)!r}" for c, v in sorted(row.items())) + "}"


class QAgentExercise(Exercise):
    """The Agent of the Q-learning text: its greedy and ε-greedy choices, its new states
    and its Q-learning and SARSA updates, on the student's Board."""

    key = "q-agent"
    functions = ("add_state", "best_action", "choose_action", "qlearning", "sarsa")
    names = ("Agent", "Board")
    members: ClassVar[dict[str, tuple[str, ...]]] = {
        "Agent": ("best_action", "choose_action", "add_state"),
        "Board": ("play",),
    }
    attributes = (
        "State",
        "q",
        "states",
        "epsilon",
        "discount",
        "alpha",
        "add_state",
        "best_action",
        "choose_action",
        "qlearning",
        "sarsa",
        "play",
        "state",
        "open",
        "winner",
        "reward",
    )
    needs: ClassVar[dict[str, tuple[str, ...]]] = {f: ("Agent", "Board") for f in functions}
    #: A learning call's answer lists at most so many moves, entries and states
    #: (:func:`~tttlab.usercode.boxside.shapes.q_agent_tables.listed`: for 40 episodes, 381
    #: moves and 713 entries), each item of a few texts of at most 60 characters; an honest
    #: answer is far smaller (states of 9 characters, marks of at most 24).
    answer_limits: ClassVar[dict[str, int]] = {
        "add_state": 4096,
        "qlearning": 2**18,
        "sarsa": 2**18,
    }
    forms: ClassVar[dict[str, Form]] = {
        "add_state": base.row(_ROW, _ROW, _ROW, _MAYBE_BOOL, _MAYBE_BOOL, base.kind(bool)),
        "best_action": base.kind(int),
        "choose_action": base.either(base.kind(int), _COUNTS),
        "qlearning": _EPISODE,
        "sarsa": _EPISODE,
    }

    def cases(self, truth: ExerciseTruth) -> dict[str, list[Case]]:
        n = truth.size
        decisions = truth.decisions()
        first_of_ply: dict[int, int] = {}
        for i in decisions:
            if truth.ply[i] in PLIES:
                first_of_ply.setdefault(truth.ply[i], i)
        spread = [
            Case(truth.boards[i], n + k, [300_000 + k, False, epsilon, CALLS])
            for k, (i, epsilon) in enumerate(
                (i, e) for i in sorted(first_of_ply.values()) for e in SPREAD
            )
        ]

        def greedy(function: str) -> list[Case]:
            seed = _SEEDS[function]
            return [Case(truth.boards[i], i, [seed + i, i % 3 == 1, 0.0, 0]) for i in decisions]

        return {
            "add_state": [Case(truth.boards[i], i, truth.boards[(i + 1) % n]) for i in range(n)],
            "best_action": greedy("best_action"),
            "choose_action": greedy("choose_action") + spread,
            "qlearning": learning_cases(_SEEDS["qlearning"]),
            "sarsa": learning_cases(_SEEDS["sarsa"]),
        }

    def payload(self, function: str, case: Case) -> Any:
        if function in ("qlearning", "sarsa"):
            return case.arg
        if function == "add_state":
            return [case.board, case.arg]
        return [case.board, *case.arg]

    # -- the truth of each call --------------------------------------------------------

    @staticmethod
    def _row(case: Case) -> dict[int, float]:
        seed, ties, _, _ = case.arg
        return values(seed, open_cells(digits(case.board)), ties)

    @staticmethod
    def _player(case: Case) -> bool:
        return case.board.count("X") == case.board.count("O")

    def _best(self, case: Case) -> list[int]:
        row = self._row(case)
        best = (max if self._player(case) else min)(row.values())
        return [c for c, v in sorted(row.items()) if v == best]

    def _shares(self, case: Case) -> dict[int, float]:
        """Each open cell's chance under ε-greedy: ε spread evenly, the rest greedy."""
        epsilon = case.arg[2]
        cells = open_cells(digits(case.board))
        shares = {c: epsilon / len(cells) for c in cells}
        shares[self._best(case)[0]] += 1 - epsilon
        return shares

    def _spread_wrong(self, case: Case, value: list[Any]) -> Wrong | None:
        """What is wrong with the cells :data:`CALLS` calls picked: a cell that is not open,
        or counts that Pearson's chi-square test (``scipy.stats.chisquare``) rejects against
        the ε-greedy shares at :data:`ALARM` shared among the check's cases (false alarms at
        most 1e-6 per check)."""
        from scipy.stats import chisquare

        counts, other = value
        cells = open_cells(digits(case.board))
        if len(counts) != 9:
            return Wrong(f"counts of {len(counts)} cells, not 9")
        picked = {c: n for c, n in enumerate(counts) if n}
        text = f"the cells picked {picked}"
        off = [c for c in picked if c not in cells]
        if other:
            return Wrong(f"{other:,} of the {CALLS:,} answers were no cell ({text})")
        if off:
            return Wrong(f"cell {off[0]}, which is not open, {picked[off[0]]:,} times ({text})")
        if sum(counts) != CALLS:
            return Wrong(f"{sum(counts):,} cells for {CALLS:,} calls ({text})")
        shares = self._shares(case)
        test = chisquare([counts[c] for c in cells], [CALLS * shares[c] for c in cells])
        if not float(test.pvalue) >= ALARM / (len(SPREAD) * len(PLIES)):
            return Wrong(f"{text} (chi-square p = {float(test.pvalue):.2g})")
        return None

    def _wrong(self, function: str, case: Case, value: Any, truth: ExerciseTruth) -> Wrong | None:
        if function in ("qlearning", "sarsa"):
            return learning_wrong(function, case, value, truth)
        if function == "add_state":
            return self._added_wrong(case, value)
        if function == "choose_action" and case.arg[3]:
            if not isinstance(value, list):
                return Wrong(f"{value} (one cell, not the counts of {CALLS:,} calls)")
            return self._spread_wrong(case, value)
        if not isinstance(value, int) or isinstance(value, bool):
            return Wrong(f"{value} (counts, not one cell)")
        row = self._row(case)
        if value in self._best(case):
            return None
        return Wrong(
            f"{value} (value {number(row[value])})" if value in row else f"{value} (not open)"
        )

    def _added_wrong(self, case: Case, value: list[Any]) -> Wrong | None:
        one, two = digits(case.board), digits(case.arg)
        seen_one, seen_two, after, in_one, in_two, shared = value
        wanted = {s: [[c, 0.0] for c in open_cells(s)] for s in (one, two)}

        def shown(row: Any) -> str:
            if row and row[:1] == ["g"]:
                return str(row[1])
            return "{" + ", ".join(f"{c}: {v!r}" for c, v in row) + "}"

        for state, row, when in (
            (one, seen_one, "after its add_state"),
            (two, seen_two, "after its add_state"),
            (one, after, f"after add_state({two!r})"),
        ):
            if row != wanted[state]:
                return Wrong(f"q[{state!r}] is {shown(row)} {when}")
        if shared:
            return Wrong(f"q[{one!r}] and q[{two!r}] are one dict: a change to one changes both")
        for state, there in ((one, in_one), (two, in_two)):
            if there is not True:
                return Wrong(f"{state!r} is not in states after add_state (`in` gave {there})")
        return None

    def right(self, function: str, case: Case, outcome: list[Any], truth: ExerciseTruth) -> bool:
        if outcome[0] != "v" or base.garbage(outcome[1]) is not None:
            return False
        return self._wrong(function, case, outcome[1], truth) is None

    def board_shown(self, function: str, case: Case, outcome: list[Any]) -> str:
        if function in ("qlearning", "sarsa") and outcome[0] == "v":
            from tttlab.usercode.cases import exercise_truth

            if base.garbage(outcome[1]) is None:
                wrong = learning_wrong(function, case, outcome[1], exercise_truth())
                if wrong is not None and wrong.board:
                    return wrong.board
        return case.board

    def notes(self, cases: dict[str, list[Case]], results: dict[str, list[list[Any]]]) -> list[str]:
        """A note for each adaptation the answers show (:func:`.q_agent_learning.mark_notes`)."""
        return mark_notes(results, _EPISODE)

    # -- the words ---------------------------------------------------------------------

    def expected(self, function: str, case: Case, truth: ExerciseTruth) -> str:
        if function == "add_state":
            one, two = digits(case.board), digits(case.arg)
            rows = {
                s: "{" + ", ".join(f"{c}: 0.0" for c in open_cells(s)) + "}" for s in (one, two)
            }
            return (
                f"q[{one!r}] = {rows[one]} and q[{two!r}] = {rows[two]}, each a dict of its "
                "own, and both states in states"
            )
        if function in ("qlearning", "sarsa"):
            return learning_expected(function, case)
        if function == "choose_action" and case.arg[3]:
            shares = {c: round(p, 4) for c, p in self._shares(case).items()}
            return (
                f"each open cell picked at its ε-greedy share {shares} (a chi-square test: "
                "false alarms at most 1e-6 per check)"
            )
        best = self._best(case)
        size = "largest" if self._player(case) else "smallest"
        value = number(self._row(case)[best[0]])
        return f"an action of {size} value ({value}): {_cells(best)}"

    def answer(self, function: str) -> str:
        return {"add_state": "row of q", "qlearning": "episode", "sarsa": "episode"}.get(
            function, "action"
        )

    def shown(self, function: str, outcome: list[Any], case: Case, truth: ExerciseTruth) -> str:
        wrong = self._wrong(function, case, outcome[1], truth)
        if wrong is not None:
            return wrong.text
        value = outcome[1]
        return str(value) if not isinstance(value, list) else "right"

    def call(self, function: str, case: Case) -> str:
        if function == "add_state":
            one, two = digits(case.board), digits(case.arg)
            return (
                f"agent.add_state({one!r}, {open_cells(one)}); "
                f"agent.add_state({two!r}, {open_cells(two)})"
            )
        if function in ("qlearning", "sarsa"):
            return learning_call(function, case)
        player = self._player(case)
        if function == "choose_action" and case.arg[3]:
            return (
                f"agent.choose_action({player}) {CALLS:,} times, with agent.epsilon = {case.arg[2]}"
            )
        return f"agent.{function}({player}) for {_who(player)}" + (
            ", with agent.epsilon = 0" if function == "choose_action" else ""
        )

    def repro(self, function: str, case: Case, expected: str, got: str) -> str:
        if function == "add_state":
            call = self.call(function, case)
            return f"agent = Agent(0.1, 0.9, 0.5); {call}: expected {expected}; got {got}"
        if function in ("qlearning", "sarsa"):
            return (
                "from tttlab.usercode.boxside.shapes.q_agent import start; "
                f"{self.call(function, case)}  # then {got}"
            )
        state = digits(case.board)
        seed, _, epsilon, _ = case.arg
        player = self._player(case)
        setup = (
            f"agent = Agent({epsilon}, 0.9, 0.5); agent.State = Board({state!r}); "
            f"agent.q = {{{state!r}: {_row_text(self._row(case))}}}; random.seed({seed}); "
            f"np.random.seed({seed})"
        )
        if function == "choose_action" and case.arg[3]:
            calls = f"[agent.choose_action({player}) for _ in range({CALLS})]"
            return f"{setup}; {calls}: expected {expected}; got {got}"
        return f"{setup}; agent.{function}({player}) should give {expected}; got {got}"
