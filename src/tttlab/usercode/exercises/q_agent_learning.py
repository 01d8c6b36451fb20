"""The learning checks of the Q-learning text's ``Agent`` (seed 003), ``qlearning(n)`` and
``sarsa(n)``: the calls made (:func:`learning_cases`), the judge of each
(:func:`learning_wrong`, :mod:`.q_agent_episodes`), the words of a counterexample, and the
notes their answers call for (:func:`mark_notes`).

Each check makes 40 calls of one episode over five settings of ε, γ and α (half of them
with a quarter of the states left out, for the code to add), then the calls of
:data:`SEVERAL` episodes: two of 3 episodes (every episode must start from an empty board)
and three of 40. The moves of the four calls of several episodes at ε > 0 are tested against
the ε-greedy shares (:mod:`.q_agent_shares`), at false alarms of at most
:data:`SHARES_ALARM` per check, shared evenly among them (2.5e-7 each).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..boxside.schema import visible
from .base import Case, Form
from .q_agent_episodes import TOLERANCE, Wrong, first_wrong

if TYPE_CHECKING:
    from tttlab.usercode.cases import ExerciseTruth

__all__ = [
    "EPISODES",
    "SEVERAL",
    "SHARES_ALARM",
    "learning_call",
    "learning_cases",
    "learning_expected",
    "learning_wrong",
    "mark_notes",
]

#: The settings (ε, γ, α) the calls of one episode cycle through (at ε = 0 every move the
#: code plays must be the mover's greedy one).
SETTINGS = ((0.3, 0.9, 0.5), (0.5, 0.7, 0.25), (0.2, 0.95, 0.8), (1.0, 0.8, 0.1), (0.0, 0.9, 0.5))
EPISODES = 40
#: The calls of several episodes: (ε, γ, α, the share of states left out, episodes).
SEVERAL = (
    (0.0, 0.9, 0.5, 0.25, 3),
    (0.3, 0.7, 0.5, 0.25, 3),
    (0.2, 0.9, 0.5, 0.0, 40),
    (0.5, 0.8, 0.3, 0.0, 40),
    (1.0, 0.9, 0.1, 0.0, 40),
)
#: The false alarms of the moves' shares, at most, in a whole check (the test's bound is
#: exact: Ville's inequality), shared evenly among its calls that are tested.
SHARES_ALARM = 1e-6
_TESTED = sum(1 for epsilon, *_, n in SEVERAL if epsilon > 0 and n > 1)


def learning_cases(seed: int) -> list[Case]:
    """The calls of one check: ``[seed, ε, γ, α, share left out, episodes]`` each."""
    return [
        Case("." * 9, k, [seed + k, *SETTINGS[k % 5], 0.25 if k // 5 % 2 else 0.0, 1])
        for k in range(EPISODES)
    ] + [
        Case("." * 9, EPISODES + k, [seed + EPISODES + k, *setting])
        for k, setting in enumerate(SEVERAL)
    ]


def learning_wrong(function: str, case: Case, value: Any, truth: ExerciseTruth) -> Wrong | None:
    """What is wrong with a call's answer, or None (:func:`.q_agent_episodes.first_wrong`)."""
    return first_wrong(function, case.arg, value, truth, SHARES_ALARM / _TESTED)


def learning_expected(function: str, case: Case) -> str:
    name = "Q-learning" if function == "qlearning" else "SARSA"
    epsilon, episodes = case.arg[1], case.arg[5]
    games = "the game" if episodes == 1 else f"{episodes} games, each from an empty board,"
    greedy = "every move greedy for its mover (epsilon 0), " if epsilon == 0 else ""
    tested = (
        ", and the moves at the epsilon-greedy shares (a likelihood-ratio test: false alarms "
        "at most 1e-6 per check)"
        if epsilon > 0 and episodes > 1
        else ""
    )
    return (
        f"{games} played through Board.play, {greedy}every entry of q as the text's {name} "
        f"update leaves it along them, within {TOLERANCE:g}, and each new state added{tested}"
    )


def learning_call(function: str, case: Case) -> str:
    seed, epsilon, discount, alpha, leave, episodes = case.arg
    return (
        f"agent = Agent({epsilon}, {discount}, {alpha}); agent.q, agent.states = "
        f"start({seed}, {leave}); random.seed({seed}); np.random.seed({seed}); "
        f"agent.{function}({episodes})"
    )


def mark_notes(results: dict[str, list[list[Any]]], form: Form) -> list[str]:
    """A note when the answers (of the learning checks, in ``form``) show marks given to
    ``Board.play`` in another form than the text's ``'1'`` and ``'2'``: each move is judged
    by the mark the student's own Board wrote."""
    marks: set[str] = set()
    for function in ("qlearning", "sarsa"):
        for outcome in results.get(function, []):
            if len(outcome) > 1 and outcome[0] == "v" and form(outcome[1]):
                marks.update(play[2] for play in outcome[1][0])
    other = sorted(marks - {"'1'", "'2'"})
    if not other:
        return []
    shown = ", ".join(visible(m) for m in other[:4]) + (", ..." if len(other) > 4 else "")
    return [
        f"marks given to Board.play as {shown}, not the text's '1' and '2': each move judged "
        "by the mark its own Board wrote"
    ]
