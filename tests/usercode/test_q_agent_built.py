"""How the check builds the Q-learning text's agent
(:mod:`tttlab.usercode.boxside.shapes.q_agent_built`): by its constructor's parameter names,
in any order, positional or keyword, required or not; the text's order where they name none;
the parameters left taking the values left; ``--name``; a required ``algorithm``; values the
constructor does not take given afterwards. Each way but the text's is said in a note; a
constructor that cannot be called is one problem with the ``--name`` to paste; and the next
agents are built the same way with other values."""

from __future__ import annotations

from typing import Any

import pytest

from tttlab.usercode.boxside.shapes.building import NotBuilt
from tttlab.usercode.boxside.shapes.q_agent_built import PROBE, again, make, noted, unbuilt


class Text:
    def __init__(self, epsilon: float, discount: float, alpha: float, algorithm: str = "q"):
        self.epsilon, self.discount, self.alpha = epsilon, discount, alpha


class Reordered:
    def __init__(self, lr: float, eps: float, gamma: float) -> None:
        self.lr, self.eps, self.gamma = lr, eps, gamma


class KeywordOnly:
    def __init__(self, *, learning_rate: float = 0.1, epsilon: float = 0.2, gamma: float = 1.0):
        self.lr, self.eps, self.gamma = learning_rate, epsilon, gamma


class OneLeft:
    def __init__(self, x: float, lr: float, df: float) -> None:
        self.eps, self.lr, self.gamma = x, lr, df


class Unnamed:
    def __init__(self, foo: float, bar: float, baz: float) -> None:
        self.eps, self.gamma, self.lr = foo, bar, baz


class Required:
    def __init__(self, epsilon: float, discount: float, alpha: float, algorithm: str) -> None:
        self.eps, self.gamma, self.lr, self.algorithm = epsilon, discount, alpha, algorithm


class Bare:
    def __init__(self) -> None:
        self.epsilon, self.gamma, self.lr = 1.0, 1.0, 1.0

    def rates(self) -> tuple[float, float, float]:
        return self.epsilon, self.gamma, self.lr


class Board:
    def __init__(self, board: Any, epsilon: float, discount: float, alpha: float) -> None:
        pass


class Short:
    def __init__(self, foo: float) -> None:
        pass


def _held(obj: Any) -> tuple[float, float, float]:
    """Epsilon, discount and alpha as the object keeps them."""
    if isinstance(obj, Text):
        return obj.epsilon, obj.discount, obj.alpha
    if isinstance(obj, Bare):
        return obj.rates()
    return obj.eps, obj.gamma, obj.lr


@pytest.mark.parametrize(
    ("cls", "call", "words"),
    [
        (Text, "Text(epsilon=0.1, discount=0.9, alpha=0.5)", None),
        (Reordered, "Reordered(lr=0.5, eps=0.1, gamma=0.9)", "its parameters matched by name"),
        (KeywordOnly, "KeywordOnly(learning_rate=0.5, epsilon=0.1, gamma=0.9)", "by name"),
        (OneLeft, "OneLeft(x=0.1, lr=0.5, df=0.9)", "(x taken as epsilon, the one left)"),
        (Unnamed, "Unnamed(foo=0.1, bar=0.9, baz=0.5)", "in the text's order"),
        (Required, "algorithm=", "algorithm given as 'qlearning'"),
        (Bare, "Bare()", "not taken by the constructor: epsilon as its attribute epsilon"),
    ],
)
def test_each_constructor_gets_the_texts_values_and_a_note(
    cls: type, call: str, words: str | None
) -> None:
    making = make(cls, {}, PROBE)
    assert call in making.done.call
    assert _held(making.done.obj) == PROBE
    note = noted(cls, making)
    if words is None:
        assert note is None
    else:
        assert note is not None
        assert words in note
    other = again(cls, {}, making, (0.3, 0.7, 0.25))
    assert _held(other) == (0.3, 0.7, 0.25)
    assert other is not making.done.obj


def test_a_name_given_says_which_parameter_is_which() -> None:
    renames = {"epsilon": "baz", "discount": "bar", "alpha": "foo"}
    making = make(Unnamed, renames, PROBE)
    assert _held(making.done.obj) == (0.5, 0.9, 0.1)  # Unnamed keeps foo, bar, baz in order
    assert making.done.call == "Unnamed(foo=0.5, bar=0.9, baz=0.1)"


def test_a_constructor_that_cannot_be_called_is_one_problem_with_the_name_to_paste() -> None:
    with pytest.raises(NotBuilt) as raised:
        make(Short, {}, PROBE)
    problem = unbuilt(Short, raised.value)
    assert problem.startswith("Short(foo")
    assert problem.endswith(
        " cannot be built: if foo is among epsilon, discount and alpha: --name epsilon=foo"
    )
    with pytest.raises(NotBuilt) as raised:
        make(Board, {}, PROBE)
    problem = unbuilt(Board, raised.value)
    assert problem.startswith("Board(board")
    assert " cannot be built: board needs a default (the checks give it epsilon" in problem


def test_what_the_constructor_raises_is_raised() -> None:
    class Raising:
        def __init__(self, epsilon: float, discount: float, alpha: float) -> None:
            raise KeyError("its own")

    with pytest.raises(KeyError, match="its own"):
        make(Raising, {}, PROBE)
