""":mod:`tttlab.usercode.boxside.shapes.td_notes` words each way a TD agent was made or
played that is not the text's: every code gives words, each said once; the text's own way
gives none."""

from __future__ import annotations

import pytest

from tttlab.usercode.boxside.shapes.td_notes import worded


def test_the_texts_own_way_gives_no_note() -> None:
    assert worded([]) == []


@pytest.mark.parametrize(
    ("way", "words"),
    [
        (
            "built:name:epsilon=eps,lr=alpha",
            "built as Agent(epsilon=eps, lr=alpha), its parameters",
        ),
        (
            "built:position:explore=eps,learn=alpha",
            "by position in the course's order (eps, alpha)",
        ),
        ("built:default:", "built as Agent() with no arguments"),
        ("V:setter:set_values", "V given through set_values()"),
        ("sym:attribute:sym,symbol", "the symbol set as the attribute sym and symbol"),
        ("discount:attribute:gamma", "the discount (1: the course's update has none) set as"),
        ("history:memory", "its history read as agent.memory"),
        ("table:dict", "V given as a dict, the container your agent keeps it in"),
        ("float:float32", "V kept as float32: its values compared at float32 precision"),
        ("env:moves,size", "with your Environment's own moves, size (the board, the states"),
    ],
)
def test_each_way_is_named_in_a_note(way: str, words: str) -> None:
    (note,) = worded([way])
    assert words in note


def test_the_agents_own_name_leads_its_note_and_each_way_is_said_once() -> None:
    ways = ["class:Player", "built:name:e=eps,a=alpha", "env:size", "env:size,moves"] * 2
    assert worded(ways) == [
        "the agent: your class Player, graded as the course's Agent; "
        "built as Player(e=eps, a=alpha), its parameters matched by name",
        "played on tttlab's stand-in Environment with your Environment's own moves, size "
        "(the board, the states and the rewards stay tttlab's)",
    ]


def test_how_the_students_environment_was_made_is_said_with_what_the_agent_reads() -> None:
    (note,) = worded(["env:size", "envinit:Grid(length=3)"])
    assert note.endswith("; your Environment's __init__ run as Grid(length=3)")
    (note,) = worded(["env:size", "envwhy:raised ValueError"])
    assert note.endswith("__init__ not run (it raised ValueError): its methods only")
    assert worded(["envinit:Grid(length=3)"]) == []  # the agent reads none of its names


def test_a_precision_that_is_none_of_the_known_is_not_said() -> None:
    assert worded(["float:float8"]) == []
