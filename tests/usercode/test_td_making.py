""":mod:`tttlab.usercode.boxside.shapes.td_making`: the student's TD agent is found under
``Agent`` or ``Player``, built as its constructor reads and given the rest of its roles as
its class takes them; each way that is not the text's is kept for a note, and what cannot
be done is one line with the constructor and the ``--name`` to paste. A role the
constructor took is never given again (a misspelt attribute stays misspelt)."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.usercode.helpers import edited
from tttlab.usercode.boxside.shapes.building import NotBuilt
from tttlab.usercode.boxside.shapes.ownenv import Played
from tttlab.usercode.boxside.shapes.td_making import Maker, agent_class, call_text
from tttlab.usercode.boxside.shapes.td_table import Tables


def _student(source: str) -> types.SimpleNamespace:
    """The names a student's source defines."""
    names: dict[str, Any] = {}
    exec(source, names)
    return types.SimpleNamespace(**{k: v for k, v in names.items() if not k.startswith("__")})


def _maker(ns: Any, renames: dict[str, str] | None = None) -> Maker:
    return Maker(ns, renames or {}, Tables(), Played(np, None, {}).fresh)


#: The course's agent as the text writes it: ``Agent(eps, alpha)``, ``setV``, ``set_symbol``.
TEXT = (Path(__file__).parent / "corpus" / "td_agent" / "agent.py").read_text()
SETV = "def setV(self, V):\n        self.V = V"


def _text_with(*changes: tuple[str, str]) -> types.SimpleNamespace:
    """The names the course's agent defines once a student's ``changes`` are made to it
    (each must apply: :func:`~tests.usercode.helpers.edited`)."""
    return _student(edited(TEXT, list(changes)))


def test_the_texts_agent_is_made_the_texts_way_with_nothing_to_note() -> None:
    made = _maker(_student(TEXT)).make(0.0, 0.3, 1, seed=5)
    agent = made.agent
    assert (agent.eps, agent.alpha, agent.sym) == (0.0, 0.3, 1)
    assert agent.V is made.table
    assert made.where == "V"
    assert made.ways == []


def test_another_name_and_other_setters_are_each_kept_for_a_note() -> None:
    ns = _text_with(
        ("class Agent:", "class Player:"),
        (SETV, "def set_values(self, V):\n        self.V = list(V)"),
        ("def set_symbol(self, sym)", "def set_player(self, sym)"),
    )
    made = _maker(ns).make(0.1, 0.5, -1, seed=5)
    assert made.ways == ["class:Player", "V:setter:set_values", "sym:setter:set_player"]
    assert made.where == "V"  # a copy of the table given: found by its name
    assert made.agent.V is not made.table


def test_the_agent_is_the_class_that_has_the_methods() -> None:
    ns = _student(
        "import abc\n"
        "class Agent(abc.ABC):\n"
        "    @abc.abstractmethod\n"
        "    def take_action(self, env): ...\n"
        "class Player(Agent):\n"
        "    def take_action(self, env): ...\n"
        "    def update(self, env): ...\n"
    )
    assert agent_class(ns) == (ns.Player, "Player")
    with pytest.raises(AttributeError):
        agent_class(types.SimpleNamespace())


def test_a_constructor_that_cannot_be_called_names_the_name_to_paste() -> None:
    ns = _text_with(
        ("(self, eps=0.1, alpha=0.5):", "(self, randomness, speed, mark):"),
        ("self.eps = eps\n        self.alpha = alpha", "self.eps, self.alpha = randomness, speed"),
    )
    with pytest.raises(NotBuilt) as raised:
        _maker(ns).make(0.1, 0.5, -1, seed=5)
    assert str(raised.value) == (
        "Agent(randomness, speed, mark) cannot be built: --name eps=randomness --name alpha=speed"
    )
    made = _maker(ns, {"eps": "randomness", "alpha": "speed"}).make(0.0, 0.2, 1, 5)
    assert (made.agent.eps, made.agent.alpha) == (0.0, 0.2)
    assert made.ways == ["built:name:randomness=eps,speed=alpha,mark=sym"]


def test_a_role_with_no_way_in_is_one_line() -> None:
    """The table loaded by a method of the student's own and kept under a name that says
    nothing of a table: neither a setter nor an attribute to give it through."""
    ns = _text_with(
        (SETV, "def load(self, V):\n        self.brain = V"), ("self.V[", "self.brain[")
    )
    with pytest.raises(
        NotBuilt, match=r"^Agent\(eps, alpha\): no way to give it V \(--name V=YOURS\)$"
    ):
        _maker(ns).make(0.1, 0.5, -1, seed=5)


def test_a_role_the_constructor_took_is_not_given_again() -> None:
    """The classic misspelling: alpha stored as aplha, read as alpha. The constructor took
    alpha, so no attribute named alpha is made for the agent: its update still fails."""
    maker = _maker(_text_with(("self.alpha = alpha", "self.aplha = alpha")))
    agent = maker.make(0.1, 0.5, -1, seed=5).agent
    env = maker.fresh()
    agent.update_state_history(env.get_state())
    with pytest.raises(AttributeError, match="'alpha'"):
        agent.update(env)


def test_a_table_the_agent_holds_already_is_given_in_its_container() -> None:
    ns = _text_with(
        ("self.verbose = False\n", "self.verbose = False\n        self.V = {}\n"),
        (f"    {SETV}\n\n", ""),
    )
    made = _maker(ns).make(0.1, 0.5, -1, seed=5)
    assert type(made.agent.V) is dict
    assert made.ways == ["V:attribute:V", "table:dict"]


def test_the_constructor_is_shown_by_its_parameters_names() -> None:
    ns = _student("class Agent:\n    def __init__(self, eps: float = 0.1, *rest, **options): ...\n")
    assert call_text(ns.Agent) == "Agent(eps, *rest, **options)"
    assert call_text(len) == "len(obj)"
    assert call_text(object()) == "?(...)"


#: The faithful agent (corpus/td_agent/agent.py) with the seat a required constructor
#: argument in each form students write it: the constructor refuses any other, and the
#: agent turns it into the environment's symbol where it marks the board.
SEAT_FORMS = {
    "letters": ("('X', 'O')", "env.x if self.seat == 'X' else env.o"),
    "lower case": ("('x', 'o')", "env.x if self.seat == 'x' else env.o"),
    # the environment's own symbols (x = -1, o = 1): taken as they are, with no note
    "plus or minus one": ("(-1, 1)", "env.x if self.seat == -1 else env.o"),
    "one and two": ("(1, 2)", "env.x if self.seat == 1 else env.o"),
}


def _seated(forms: str, mark: str) -> str:
    return edited(
        TEXT,
        [
            (
                "    def __init__(self, eps=0.1, alpha=0.5):\n",
                "    def __init__(self, which_player, eps=0.1, alpha=0.5):\n"
                f"        if which_player not in {forms}:\n"
                "            raise ValueError('which_player must be one of ' + str("
                f"{forms}))\n"
                "        self.seat = which_player\n",
            ),
            ("    def set_symbol(self, sym):\n        self.sym = sym\n\n", ""),
            ("env.board[i, j] = self.sym", f"env.board[i, j] = {mark}"),
            (
                "env.board[next_move[0], next_move[1]] = self.sym",
                f"env.board[next_move[0], next_move[1]] = {mark}",
            ),
            ("reward = env.reward(self.sym)", f"reward = env.reward({mark})"),
        ],
    )


@pytest.mark.parametrize("form", sorted(SEAT_FORMS))
def test_the_seat_is_given_in_the_form_the_constructor_takes(form: str, tmp_path: Path) -> None:
    from tests.usercode.helpers import judged_here

    path = tmp_path / "agent.py"
    path.write_text(_seated(*SEAT_FORMS[form]))
    ns = _student(path.read_text())
    made = _maker(ns).make(0.1, 0.5, -1, 0)
    noted = any(w.startswith("seat:") for w in made.ways)
    assert noted == (form != "plus or minus one"), made.ways
    for check in ("take_action", "update"):
        assert judged_here(path, "td-agent", check).ok, (form, check)


def test_a_seat_taken_the_wrong_way_round_still_fails(tmp_path: Path) -> None:
    from tests.usercode.helpers import failing_here

    forms, mark = SEAT_FORMS["letters"]
    path = tmp_path / "agent.py"
    path.write_text(
        _seated(forms, mark.replace("env.x if", "env.o if").replace("else env.o", "else env.x"))
    )
    failing_here(path, "td-agent", "take_action", "")


def test_a_constructor_that_refuses_every_seat_is_one_line_naming_it() -> None:
    ns = _text_with(
        (
            "    def __init__(self, eps=0.1, alpha=0.5):\n",
            "    def __init__(self, player, eps=0.1, alpha=0.5):\n"
            "        raise RuntimeError('not this way')\n",
        )
    )
    with pytest.raises(NotBuilt) as raised:
        _maker(ns).make(0.1, 0.5, -1, 0)
    message = str(raised.value)
    assert "Agent(player, eps, alpha)" in message
    assert "raised RuntimeError: not this way" in message
    assert "\n" not in message


def test_the_making_is_a_line_to_paste_with_the_students_own_calls() -> None:
    text = _maker(_student(TEXT)).make(0.1, 0.5, -1, 0)
    assert (
        text.making
        == "agent = Agent(eps={eps}, alpha={alpha}); agent.setV(V); agent.set_symbol({sym})"
    )
    forms, mark = SEAT_FORMS["letters"]
    made = _maker(_student(_seated(forms, mark))).make(0.1, 0.5, -1, 0)
    assert (
        made.making == "agent = Agent(which_player={sym}, eps={eps}, alpha={alpha}); agent.setV(V)"
    )


def test_a_reproduce_line_makes_the_agent_as_the_box_made_it() -> None:
    from tttlab.usercode.exercises import EXERCISES

    spec = EXERCISES["td-agent"]
    text = "r = 1; agent = Agent(eps=0, alpha=0.5); agent.setV(V); agent.set_symbol(env.o); go"
    making = [
        "agent = Agent(which_player={sym}, eps={eps}, alpha={alpha}); agent.V = V",
        "'X'",
        "'O'",
    ]
    assert spec.made(text, making) == (
        "r = 1; agent = Agent(which_player='O', eps=0, alpha=0.5); agent.V = V; go"
    )
    assert spec.made(text, []) == text  # the text's own way
