"""The exercise shapes ``ttt check`` knows, one module each: what the grader checks (an
:class:`~.base.Exercise`). Each one's side in the box, how the student's code is called, is
:mod:`tttlab.usercode.boxside.shapes`.

- ``cs50``: CS50 AI's functions over a list-of-lists board (:mod:`.cs50`);
- ``course``: the course's ``Environment`` class and its helpers (:mod:`.course`);
- ``board``: the ``Board`` class of the Q-learning text (:mod:`.board`);
- ``td-agent``: the course's TD(0) ``Agent`` and ``play_game`` (:mod:`.td_agent`);
- ``q-agent``: the Q-learning text's ``Agent``, Q-learning and SARSA (:mod:`.q_agent`);
- ``mdp``: the MDP text's ``P``, ``R`` and their iterations (:mod:`.mdp`).
"""

from __future__ import annotations

from .base import Case, Exercise, Plan
from .board import BoardExercise
from .course import CourseExercise
from .cs50 import CS50
from .mdp import MDPTextExercise
from .q_agent import QAgentExercise
from .td_agent import TDAgentExercise

__all__ = ["EXERCISES", "Case", "Exercise", "Plan"]

#: Each shape's parent side, by its ``--exercise`` name.
EXERCISES: dict[str, Exercise] = {
    e.key: e
    for e in (
        CS50(),
        CourseExercise(),
        BoardExercise(),
        TDAgentExercise(),
        QAgentExercise(),
        MDPTextExercise(),
    )
}
