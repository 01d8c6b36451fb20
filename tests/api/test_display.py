"""Notebook HTML (:mod:`tttlab.api.display`): each table says what it shows, one row per seat
or per agent (an arena's ranked by points), and escapes the text it is given."""

from __future__ import annotations

import re
from types import SimpleNamespace

import tttlab
from tttlab.agents.forward import Architecture
from tttlab.agents.network import NetworkAgent
from tttlab.api.display import (
    agent_intro_html,
    arena_html,
    evaluation_html,
    intro_html,
    mapping_html,
)
from tttlab.game import Geometry, Player


def cells(html: str) -> list[str]:
    return re.findall(r"<td[^>]*>(.*?)</td>", html)


def test_an_evaluation_is_a_row_per_seat_judged_and_says_how_it_was_judged() -> None:
    exact = evaluation_html(tttlab.evaluate("random", seat="X"))
    assert "<b>random on 3x3k3: exact evaluation</b>" in exact
    row = cells(exact)
    assert len(row) == 5  # X alone
    assert row[:2] == ["X", "-1"]
    assert row[3].startswith("0.5849 / ")  # 737/1260 wins against random
    proof = evaluation_html(tttlab.evaluate("minimax:1", prove=True))
    assert "proved without a table" in proof
    assert [row[:3] for row in (cells(proof)[:5], cells(proof)[5:])] == [
        ["X", "+0", "—"],
        ["O", "-1", "—"],
    ]


def test_an_arena_is_ranked_by_points() -> None:
    standings = {
        "random": {"win": 1, "draw": 0, "loss": 3, "points": 1.0},
        "perfect": {"win": 3, "draw": 1, "loss": 0, "points": 3.5},
    }
    result = SimpleNamespace(board="3x3k3", games=2, to_dict=lambda: {"standings": standings})
    html = arena_html(result)
    assert "Arena on 3x3k3: 2 games per pairing and side" in html
    assert cells(html) == ["perfect", "3", "1", "0", "3.5", "random", "1", "0", "3", "1"]


def test_a_mapping_shows_nested_values_as_json_and_escapes_text() -> None:
    html = mapping_html("MDP <1>", {"seat": "<O>", "gamma": 1.0, "hidden": [8, 4], "m": {"a": 1}})
    assert "<b>MDP &lt;1&gt;</b>" in html
    assert cells(html) == [
        *("seat", "&lt;O&gt;"),
        *("gamma", "1.0"),
        *("hidden", "[8, 4]"),
        *("m", "{&quot;a&quot;: 1}"),
    ]


def test_the_intro_says_what_learned_the_agent_and_for_how_long() -> None:
    board = SimpleNamespace(name="3x3k3")
    table = SimpleNamespace(
        algorithm="q<", geometry=board, meta={"episodes": 20_000}, seats=(Player.X, Player.O)
    )
    assert intro_html(table) == (
        "<p style='font-family:sans-serif'><b>q&lt;</b> on 3x3k3, 20,000 episodes, seats X, O</p>"
    )
    table.meta = {}
    assert agent_intro_html(table) == "<p><b>q&lt;</b> on 3x3k3</p>"
    network = NetworkAgent(
        "alphazero",
        Geometry(),
        Architecture(9, (64,), "policy-value", conv=(16,), columns=3),
        {},
        meta={"episodes": 8192},
    )
    assert intro_html(network) == (
        "<p style='font-family:sans-serif'><b>alphazero</b> network on 3x3k3, 8,192 self-play "
        "games, 3x3 convolutions (16,), hidden (64,)</p>"
    )
