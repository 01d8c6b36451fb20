"""The exercise shapes ``ttt check`` knows, one module each: what the grader checks (an
:class:`~.base.Exercise`). Each one's side in the box, how the student's code is called, is
:mod:`tttlab.usercode.boxside.shapes`.

- ``cs50``: CS50 AI's functions over a list-of-lists board (:mod:`.cs50`);
- ``course``: the course's ``Environment`` class and its helpers (:mod:`.course`);
- ``board``: the ``Board`` class of the Q-learning text (:mod:`.board`).
"""

from __future__ import annotations

from .base import Case, Exercise, Plan
from .board import BoardExercise
from .course import CourseExercise
from .cs50 import CS50

__all__ = ["EXERCISES", "Case", "Exercise", "Plan"]

#: Each shape's parent side, by its ``--exercise`` name.
EXERCISES: dict[str, Exercise] = {e.key: e for e in (CS50(), CourseExercise(), BoardExercise())}
