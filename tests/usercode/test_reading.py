""":mod:`tttlab.usercode.boxside.shapes.reading` reads what a student's class loads from its
bytecode, without running any of it: the attributes its methods read (nested functions,
properties and bases too), and whether it uses one as a mapping."""

from __future__ import annotations

from typing import Any

from tttlab.usercode.boxside.shapes.reading import attributes_read, used_as_mapping


class Base:
    def helper(self, env):
        return env.size


class Agent(Base):
    limit = 3

    def __init__(self):
        self.table = {}

    @property
    def width(self):
        return self.columns

    @staticmethod
    def count(env):
        return [cell for cell in env.moves()]

    def take_action(self, env):
        pick = lambda k: self.V[k]  # noqa: E731 (a student's lambda)
        return pick(env.get_state())

    def update(self, env):
        if env.get_state() in self.seen:
            return self.table.get(0, 0.5)
        return None


def test_the_attributes_every_method_loads_are_read() -> None:
    read = attributes_read(Agent)
    assert {"size", "columns", "moves", "V", "get_state", "seen", "table"} <= read
    assert "limit" not in read  # never loaded by a method
    assert "table" not in attributes_read(Base)


def test_an_attribute_used_as_a_mapping_is_told_from_one_that_is_indexed() -> None:
    assert used_as_mapping(Agent, {"table"})  # .get()
    assert used_as_mapping(Agent, {"seen"})  # ``in``
    assert not used_as_mapping(Agent, {"V"})  # only indexed


def test_nothing_of_the_class_runs_while_it_is_read() -> None:
    class Meta(type):
        def __getattribute__(cls, name: str) -> Any:
            raise AssertionError("read through the class's own lookup")

    class Hostile(metaclass=Meta):
        def go(self):
            return self.V.keys()

    assert "V" in attributes_read(Hostile)
    assert used_as_mapping(Hostile, {"V"})
    assert attributes_read(42) == set()
    assert not used_as_mapping("not a class", {"V"})
