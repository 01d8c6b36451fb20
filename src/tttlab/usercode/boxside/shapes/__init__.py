"""Each exercise's side in the box: how a case becomes a call of the student's code, and
how the value that came back becomes an answer in tttlab's terms (standard library only).
The grader's side of each exercise, what is right and how to say it, is
:mod:`tttlab.usercode.exercises`."""

from __future__ import annotations

from .base import Child
from .board import BoardChild
from .course import CourseChild
from .cs50 import CS50Child
from .mdp import MDPTextChild
from .q_agent import QAgentChild
from .td_agent import TDAgentChild

__all__ = ["CHILDREN", "Child"]

#: Each shape's side in the box, by its ``--exercise`` name.
CHILDREN: dict[str, type[Child]] = {
    "cs50": CS50Child,
    "course": CourseChild,
    "board": BoardChild,
    "td-agent": TDAgentChild,
    "q-agent": QAgentChild,
    "mdp": MDPTextChild,
}
