"""The exercise shapes ``ttt check`` knows, one module each, with both sides of the check in
it: how the child calls the student's code (a :class:`~.base.Child`) and what the parent
checks (an :class:`~.base.Exercise`). Standard library only: a copy of this package runs in
the box, under a name of its own.

- ``cs50``: CS50 AI's functions over a list-of-lists board (:mod:`.cs50`);
- ``course``: the course's ``Environment`` class and its helpers (:mod:`.course`);
- ``board``: the ``Board`` class of the Q-learning text (:mod:`.board`).
"""

from __future__ import annotations

from .base import Case, Child, Exercise, Plan
from .board import BoardChild, BoardExercise
from .course import CourseChild, CourseExercise
from .cs50 import CS50, CS50Child

__all__ = ["CHILDREN", "EXERCISES", "Case", "Child", "Exercise", "Plan"]

#: Each shape's parent side, by its ``--exercise`` name.
EXERCISES: dict[str, Exercise] = {e.key: e for e in (CS50(), CourseExercise(), BoardExercise())}
#: Each shape's child side, by the same name.
CHILDREN: dict[str, type[Child]] = {"cs50": CS50Child, "course": CourseChild, "board": BoardChild}
