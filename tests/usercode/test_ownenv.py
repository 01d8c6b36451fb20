""":mod:`tttlab.usercode.boxside.shapes.ownenv`: the agent plays on the stand-in with the
student's own Environment behind it. Every member of the course's Environment stays the
stand-in's, whatever the student's class makes of it; everything else is the student's (its
methods, the attributes its ``__init__`` sets, its ``__getattr__``); a class that cannot be
mixed leaves the plain stand-in."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tttlab.usercode.boxside.shapes.ownenv import Played, mixed_class
from tttlab.usercode.boxside.shapes.standin import Environment, text


class Theirs:
    """A student's Environment: the course's members written wrong on purpose (so that
    using them would show), and its own additions."""

    x, o = 1, -1  # the other way round from the course's

    def __init__(self, size=3):
        self.size = size
        self.board = np.full((size, size), 7.0)
        self.log = []

    def get_state(self):
        return 42

    def game_over(self, force_recalculate=False):
        return True

    def moves(self):
        return [(i, j) for i in range(self.size) for j in range(self.size) if self.board[i, j] == 0]


def _played(theirs: Any, aliases: dict[str, str] | None = None) -> Played:
    return Played(np, theirs, aliases or {})


def test_the_courses_members_are_the_stand_ins_and_the_rest_the_students() -> None:
    played = _played(Theirs)
    env = played.fresh()
    env.board[0, 0] = env.x
    assert (env.x, env.o) == (-1, 1)
    assert env.get_state() == 1  # the course's id of X.......
    assert not env.game_over()
    assert env.size == 3  # set by the student's __init__
    assert len(env.moves()) == 8  # the student's method, on the stand-in's board
    assert text(env) == "X" + "." * 8
    assert played.additions == ["log", "moves", "size"]


def test_each_environment_gets_its_own_copy_of_the_students_attributes() -> None:
    played = _played(Theirs)
    first, second = played.fresh(), played.fresh()
    first.log.append("moved")
    assert second.log == []


def test_a_property_over_a_course_name_is_set_aside() -> None:
    class Guarded(Theirs):
        @property
        def board(self):
            raise AssertionError("the student's board is not the one played on")

        @board.setter
        def board(self, value):
            raise AssertionError("nor set")

    env = _played(Guarded).fresh()
    env.board[1, 1] = env.o
    assert text(env) == "....O...."


def test_the_students_getattr_answers_what_neither_class_has() -> None:
    class Configured(Theirs):
        def __getattr__(self, name):
            if name == "cells":
                return 9
            raise AttributeError(name)

    env = _played(Configured).fresh()
    assert env.cells == 9
    with pytest.raises(AttributeError):
        _ = env.nothing


def test_an_init_that_needs_arguments_gets_those_its_parameters_name() -> None:
    class Sized(Theirs):
        def __init__(self, length, k):
            super().__init__(length)
            self.k = k

    played = _played(Sized)
    env = played.fresh()
    assert (env.size, env.k) == (3, 3)
    assert played.init == "Sized(length=3, k=3)"


@pytest.mark.parametrize(
    ("init", "why"),
    [
        ("def __init__(self):\n    raise ValueError('no')\n", "raised ValueError"),
        ("def __init__(self, renderer):\n    pass\n", "needs arguments tttlab cannot name"),
    ],
)
def test_an_init_that_cannot_be_run_leaves_the_methods_and_says_why(init: str, why: str) -> None:
    namespace: dict[str, Any] = {}
    exec(init, namespace)
    Broken = type("Broken", (Theirs,), {"__init__": namespace["__init__"]})
    env = _played(Broken).fresh()
    assert env.get_state() == 0
    assert "moves" in dir(env)
    with pytest.raises(AttributeError, match=f"'size' \\(its __init__ {why}\\)"):
        _ = env.size


def test_the_students_names_for_course_members_read_the_stand_ins() -> None:
    class Tiled:
        def __init__(self):
            self.tiles = np.zeros((3, 3))

        def count(self):
            return int((self.tiles != 0).sum())

    env = _played(Tiled, {"tiles": "board"}).fresh()
    env.tiles[2, 2] = env.x
    assert text(env) == "........X"
    assert env.count() == 1


def test_the_students_attribute_hooks_do_not_run_on_the_stand_ins_members() -> None:
    class Hooked(Theirs):
        def __setattr__(self, name, value):
            raise AssertionError("the student's __setattr__ ran")

        def __getattribute__(self, name):
            raise AssertionError("the student's __getattribute__ ran")

    env = _played(Hooked).fresh()
    env.board[0, 1] = env.o
    assert text(env) == ".O......."


class Meta(type):
    pass


class Slotted(int):  # a built-in base whose layout does not mix with the stand-in's
    pass


@pytest.mark.parametrize(
    "theirs",
    [None, "Environment", 42, Environment, Slotted],
    ids=["none", "a-string", "a-number", "the-stand-in", "an-int-base"],
)
def test_a_class_that_cannot_be_mixed_leaves_the_plain_stand_in(theirs: Any) -> None:
    played = _played(theirs)
    env = played.fresh()
    assert type(env) is Environment
    assert env.get_state() == 0
    assert played.additions == []


def test_a_mixed_class_keeps_the_stand_in_first() -> None:
    mixed = mixed_class(Theirs, {})
    assert mixed is not None
    assert mixed.__mro__[1:3] == (Environment, Theirs)
    assert mixed_class(Meta("Other", (), {}), {}) is not None
