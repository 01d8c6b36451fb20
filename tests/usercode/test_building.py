""":mod:`tttlab.usercode.boxside.shapes.building` builds a student's object the way its own
constructor reads: each role to the parameter that names it, positional or keyword,
required or not; the text's order only where it agrees with the names; one line naming the
constructor when no way works. A role the constructor does not take is given afterwards
by setter, else by the attribute the class's methods read, never over a method."""

from __future__ import annotations

from typing import Any

import pytest

from tttlab.usercode.boxside.shapes import building
from tttlab.usercode.boxside.shapes.building import (
    NotBuilt,
    construct,
    give,
    holds,
    role_of,
    setter_of,
    signature_text,
)

ROLES = {"eps": 0.1, "alpha": 0.5, "sym": -1}
TEXT = (("eps", "alpha"), ())


class Kept:
    """Whatever it is built with, kept as given."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


def test_each_role_goes_to_the_parameter_that_names_it_by_keyword() -> None:
    class Agent:
        def __init__(self, epsilon, learning_rate, symbol):
            self.got = (epsilon, learning_rate, symbol)

    built = construct(Agent, ROLES, TEXT)
    assert built.obj.got == (0.1, 0.5, -1)
    assert built.passed == {"eps", "alpha", "sym"}
    assert built.by == "name"
    assert built.params == {"epsilon": "eps", "learning_rate": "alpha", "symbol": "sym"}
    assert built.call == "Agent(epsilon=0.1, learning_rate=0.5, symbol=-1)"


def test_the_order_of_the_parameters_does_not_matter() -> None:
    class Agent:
        def __init__(self, player, lr, verbose=False, e=0.3):
            self.got = (player, lr, verbose, e)

    assert construct(Agent, ROLES, TEXT).obj.got == (-1, 0.5, False, 0.1)


def test_positional_only_parameters_get_their_roles_by_position_after_kept_defaults() -> None:
    class Agent:
        def __init__(self, verbose=True, eps=0.9, /, *, alpha):
            self.got = (verbose, eps, alpha)

    assert construct(Agent, ROLES, TEXT).obj.got == (True, 0.1, 0.5)


def test_a_table_is_shown_by_its_role_in_the_call() -> None:
    class Agent:
        def __init__(self, V, eps):
            self.V, self.eps = V, eps

    built = construct(Agent, {"V": [0.5] * 9, "eps": 0.1})
    assert built.call == "Agent(V=V, eps=0.1)"


def test_a_required_parameter_whose_words_name_one_role_takes_it() -> None:
    class Agent:
        def __init__(self, alpha_value, player_mark, eps_decay=0.99):
            self.got = (alpha_value, player_mark, eps_decay)

    # eps_decay has a default: a word of it is no reason to give it eps
    assert construct(Agent, ROLES, TEXT).obj.got == (0.5, -1, 0.99)


def test_the_students_own_names_say_which_parameter_is_which() -> None:
    class Agent:
        def __init__(self, randomness, speed):
            self.got = (randomness, speed)

    names = {"eps": "randomness", "alpha": "speed"}
    assert construct(Agent, ROLES, TEXT, names).obj.got == (0.1, 0.5)


def test_unnamed_parameters_take_the_texts_order_only_where_the_names_agree() -> None:
    class Agreeing:
        def __init__(self, explore, learn):
            self.got = (explore, learn)

    built = construct(Agreeing, ROLES, TEXT)
    assert built.obj.got == (0.1, 0.5)
    assert built.by == "position"
    assert built.params == {"explore": "eps", "learn": "alpha"}

    class Crossed:  # ``a`` names alpha: the text's order would give it eps
        def __init__(self, a, b):
            self.got = (a, b)

    with pytest.raises(NotBuilt) as raised:
        construct(Crossed, ROLES, TEXT)
    assert raised.value.unknown == ["b"]
    assert raised.value.unmatched == ["eps", "sym"]
    assert "Crossed(a, b) needs b" in str(raised.value)


def test_a_constructor_with_no_names_to_read_is_called_as_the_text_calls_it() -> None:
    built = construct(Kept, ROLES, TEXT)
    assert built.obj.args == (0.1, 0.5)
    assert built.by == "position"

    class Bare:
        def __init__(self, *args):
            if args:
                raise TypeError("takes nothing")

    assert construct(Bare, ROLES, TEXT).by == "default"
    with pytest.raises(NotBuilt, match="cannot be called with eps, alpha, sym: takes nothing"):
        construct(Bare, ROLES, TEXT[:1])


def test_what_the_constructor_raises_is_the_students_and_is_raised() -> None:
    class Agent:
        def __init__(self, eps, alpha):
            raise ZeroDivisionError("its own")

    with pytest.raises(ZeroDivisionError, match="its own"):
        construct(Agent, ROLES, TEXT)


def test_a_constructor_without_parameters_is_built_with_none() -> None:
    class Agent:
        def __init__(self):
            self.eps = 0.3

    built = construct(Agent, ROLES, TEXT)
    assert built.passed == set()
    assert built.call == "Agent()"


def test_roles_are_read_from_names_without_case_or_underscores() -> None:
    assert role_of("Learning_Rate", ["eps", "alpha"]) == "alpha"
    assert role_of("exploration_rate", ["eps", "alpha"]) == "eps"
    assert role_of("alpha_value", ["eps", "alpha"]) is None
    assert role_of("alpha_value", ["eps", "alpha"], loose=True) == "alpha"
    assert role_of("explore_and_learning_rate", ["eps", "alpha"], loose=True) is None
    assert role_of("chance", ["eps"], {"eps": "Chance"}) == "eps"


def test_the_signature_is_shown_as_the_code_reads() -> None:
    class Agent:
        def __init__(self, eps=0.1):
            pass

    assert signature_text(Agent) == "Agent(eps=0.1)"
    assert signature_text(int) in ("int(...)", "int(x=0, /)")


class Student:
    """A student's agent with setters of its own names and a method named like a role."""

    label = "x"

    def __init__(self):
        self.alpha = 0.9
        self.table: dict[int, float] = {}

    def set_values(self, values: Any) -> None:
        self.values = values

    def set_sym(self, a: int, b: int) -> None:  # two arguments: no setter of one role
        raise AssertionError("not called")

    def value(self, state: int) -> float:  # a method named like the table
        return self.values[state]

    def act(self) -> Any:
        return (self.alpha, self.sym, self.symbol, self.table, self.value(0), self.discount)


def test_a_role_is_given_through_a_setter_of_one_argument() -> None:
    agent = Student()
    assert setter_of(agent, "V") == "set_values"
    assert setter_of(agent, "sym") is None
    assert give(agent, "V", [0.25], None) == "setter:set_values"
    assert agent.values == [0.25]


def test_a_role_without_a_setter_replaces_the_attributes_the_methods_read() -> None:
    agent = Student()
    assert give(agent, "alpha", 0.5) == "attribute:alpha"
    assert agent.alpha == 0.5
    # the methods read sym and symbol, which it does not hold: set only when asked to
    assert give(agent, "sym", -1) is None
    assert give(agent, "sym", -1, create=True) == "attribute:sym,symbol"
    assert (agent.sym, agent.symbol) == (-1, -1)
    # a role none of whose names the methods read has no way in
    assert give(agent, "eps", 0.1, create=True) is None


class Valued:
    """A table under ``table``, read through a method named ``value``; no setter."""

    def __init__(self):
        self.table: dict[int, float] = {}

    def value(self, state: int) -> float:
        return self.table.get(state, 0.5)


def test_an_attribute_named_like_a_role_is_never_set_over_a_method() -> None:
    agent = Valued()
    assert give(agent, "V", {0: 0.25}, create=True) == "attribute:table"
    assert agent.table == {0: 0.25}
    assert agent.value(0) == 0.25  # still the method


def test_what_an_object_holds_is_read_from_its_dicts() -> None:
    agent = Student()
    assert holds(agent, "alpha")
    assert holds(agent, "label")  # a class attribute that is a value
    assert not holds(agent, "value")  # a method
    assert not holds(agent, "sym")

    class Guarded:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError("no getter runs")

    assert not holds(Guarded(), "V")


def test_a_named_setter_is_used_first() -> None:
    agent = Student()
    assert give(agent, "V", [1.0], setter="set_values") == "setter:set_values"


def test_a_classs_parameters_are_read_once_however_often_it_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A check builds the student's class for every board (19,683 for get_state): reading
    its signature each time cost as much as the call itself."""
    read: list[Any] = []
    signature = building.inspect.signature

    def counted(obj: Any) -> Any:
        read.append(obj)
        return signature(obj)

    monkeypatch.setattr(building.inspect, "signature", counted)

    class Environment:
        def __init__(self, rows: int = 3) -> None:
            self.rows = rows

    class Other:
        def __init__(self, eps: float) -> None:
            self.eps = eps

    boards = [construct(Environment, {"rows": 3}).obj for _ in range(5)]
    assert len({id(b) for b in boards}) == 5  # a new object each time
    assert construct(Other, {"eps": 0.5}).obj.eps == 0.5
    assert construct(Other, {"eps": 0.25}).obj.eps == 0.25
    assert read == [Environment, Other]
