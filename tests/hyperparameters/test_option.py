"""One option (``tttlab.hyperparameters.option``), each kind on its own, built by hand: what
it accepts and refuses, how it reads from text, how it is shown and written back as
command-line words, and the learners' names."""

from __future__ import annotations

import math

import pytest

from tttlab.errors import ConfigError, TttlabError, TttlabTypeError
from tttlab.hyperparameters.option import (
    LEARNERS,
    NETWORK_LEARNERS,
    TABLE_LEARNERS,
    Hyperparameter,
    check_learner,
)

RATE = Hyperparameter(
    "step_size", "number", "A step.", {"q": 0.5, "td": None}, 0.0, 1.0, low_open=True, shown="1/n"
)
COUNT = Hyperparameter("games", "integer", "Games.", {"dqn": 8, "q": 2}, low=1, high=64)
CHOICE = Hyperparameter("side", "choice", "A side.", {"dqn": "x"}, choices=("mover", "x"))
SWITCH = Hyperparameter("double", "switch", "Double.", {"dqn": True})
WIDTHS = Hyperparameter("conv", "widths", "Channels.", {"ppo": ()}, widths=(1, 32), layers=(0, 3))


def test_the_learners_are_the_tables_then_the_networks() -> None:
    assert LEARNERS == TABLE_LEARNERS + NETWORK_LEARNERS
    assert check_learner("double-q") == "double-q"
    with pytest.raises(ConfigError, match="unknown algorithm 'muzero'; choose one of td, q"):
        check_learner("muzero")
    with pytest.raises(TttlabTypeError, match="algorithm must be a name"):
        check_learner(3)


def test_an_option_applies_to_its_learners_in_the_courses_order() -> None:
    assert RATE.option == "--step-size"
    assert COUNT.learners == ("q", "dqn")  # declared dqn first
    assert COUNT.applies("q")
    assert not COUNT.applies("td")
    assert [RATE.default_text("q"), RATE.default_text("td")] == ["0.5", "1/n"]
    assert [SWITCH.default_text("dqn"), WIDTHS.default_text("ppo")] == ["on", "none"]
    assert COUNT.default_text("dqn") == "8"


@pytest.mark.parametrize(
    ("option", "text"),
    [
        (RATE, "(0, 1]"),
        (COUNT, "[1, 64]"),
        (CHOICE, "mover, x"),
        (SWITCH, "true or false"),
        (WIDTHS, "0 to 3 layers of 1 to 32"),
    ],
)
def test_each_kind_says_its_range(option: Hyperparameter, text: str) -> None:
    assert option.range_text() == text


def test_numbers_are_checked_against_the_range() -> None:
    assert RATE.check(1) == 1.0
    assert isinstance(RATE.check(1), float)
    assert COUNT.check(3.0) == 3
    assert isinstance(COUNT.check(3.0), int)
    for outside in (0.0, 1.5, math.inf, math.nan):  # 0 is open
        with pytest.raises(ConfigError, match=r"--step-size must be within \(0, 1\]"):
            RATE.check(outside)
    for wrong in ("0.5", True, None):
        with pytest.raises(TttlabTypeError, match="--step-size must be a number"):
            RATE.check(wrong)
    with pytest.raises(TttlabTypeError, match="--games must be a whole number"):
        COUNT.check(2.5)
    with pytest.raises(ConfigError, match=r"--games must be within \[1, 64\], got 65"):
        COUNT.check(65)


def test_choices_switches_and_widths_are_checked() -> None:
    assert CHOICE.check("x") == "x"
    with pytest.raises(ConfigError, match="--side must be one of mover, x, got 'o'"):
        CHOICE.check("o")
    with pytest.raises(TttlabTypeError):
        CHOICE.check(1)
    assert SWITCH.check(False) is False
    with pytest.raises(TttlabTypeError, match="--double must be true or false"):
        SWITCH.check(1)
    assert WIDTHS.check([8, 4]) == (8, 4)
    assert WIDTHS.check("8:4") == WIDTHS.check("8,4") == (8, 4)
    assert WIDTHS.check(" None ") == WIDTHS.check("") == ()
    for bad in ("8,x", (8, 4, 2, 1), (33,), (0,)):
        with pytest.raises(ConfigError, match="--conv"):
            WIDTHS.check(bad)
    with pytest.raises(TttlabTypeError, match="widths such as"):
        WIDTHS.check((8.0,))


def test_text_is_parsed_to_the_kinds_value() -> None:
    assert RATE.parse(" 0.25 ") == 0.25
    assert COUNT.parse("1_0") == 10
    assert isinstance(COUNT.parse("10.0"), int)
    assert [SWITCH.parse(t) for t in ("on", "Yes", "1", "false", "OFF", "0")] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    assert WIDTHS.parse("16,16") == (16, 16)
    with pytest.raises(ConfigError, match="--games takes numbers, got 'many'"):
        COUNT.parse("many")
    with pytest.raises(ConfigError, match="--double takes true or false"):
        SWITCH.parse("maybe")
    with pytest.raises(TttlabError):
        COUNT.parse("100")  # parsed, then out of range


def test_a_value_goes_back_as_the_words_that_give_it() -> None:
    assert RATE.argv(0.5) == ["--step-size", "0.5"]
    assert COUNT.argv(3.0) == ["--games", "3"]
    assert CHOICE.argv("x") == ["--side", "x"]
    assert [SWITCH.argv(True), SWITCH.argv(False)] == [["--double"], ["--no-double"]]
    assert [WIDTHS.argv((8, 4)), WIDTHS.argv(())] == [["--conv", "8,4"], ["--conv", "none"]]
    for option, value in ((RATE, 0.125), (COUNT, 17), (SWITCH, False), (WIDTHS, (3,))):
        words = option.argv(value)
        text = "false" if words[0].startswith("--no-") else (words[1] if len(words) > 1 else "1")
        assert option.parse(text) == option.check(value)
    with pytest.raises(ConfigError):
        RATE.argv(2.0)  # checked first


def test_the_web_forms_json() -> None:
    assert RATE.describe("td") == {
        "name": "step_size",
        "option": "--step-size",
        "kind": "number",
        "help": "A step.",
        "default": None,
        "shown": "1/n",
        "minimum": 0.0,
        "maximum": 1.0,
        "exclusive_minimum": True,
        "choices": [],
    }
    assert WIDTHS.describe("ppo")["default"] == []  # a list, as JSON has no tuples
    assert CHOICE.describe("dqn")["choices"] == ["mover", "x"]
