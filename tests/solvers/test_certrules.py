"""The verifier's own rules (tttlab.certrules) agree with the game package's, which they
never import: the lines, the symmetries, a winner, a line one mark short, dead cells."""

from __future__ import annotations

import random

import pytest

from tttlab.certrules import CertificateError, Rules
from tttlab.game import Geometry, Position
from tttlab.solvers.certificate import _completes, dead


@pytest.mark.parametrize("board", ["3x3k3", "4x4k3", "3x5k3", "6x4k4", "1x9k3", "7x7k5"])
def test_the_lines_and_symmetries_are_the_game_packages(board: str) -> None:
    g = Geometry.parse(board)
    rules = Rules(g.rows, g.cols, g.k, symmetric=True)
    assert {frozenset(line) for line in rules.lines} == {frozenset(line) for line in g.lines}
    assert set(rules.images) == set(g.symmetries)
    assert len(rules.images) == {"3x3k3": 8, "4x4k3": 8, "1x9k3": 2}.get(board, len(rules.images))
    assert Rules(g.rows, g.cols, g.k).images == [tuple(range(g.cells))]


@pytest.mark.parametrize("board", ["3x3k3", "4x4k3", "5x4k4"])
def test_winner_a_line_one_short_and_dead_cells_as_the_game_sees_them(board: str) -> None:
    g = Geometry.parse(board)
    rules = Rules(g.rows, g.cols, g.k)
    rng = random.Random(board)
    for _ in range(300):
        p = Position.initial(g)
        for _ in range(rng.randrange(g.cells)):
            if p.is_terminal:
                break
            p = p.apply(rng.choice(p.legal_moves))
        text = p.to_string()
        winner = rules.winner(text)
        assert winner == (p.winner.name if p.winner else None)
        if winner is None:
            for mark in (1, 2):
                assert rules.can_complete_now(text, "XO"[mark - 1]) == _completes(p, mark)
            empty = [c for c, m in enumerate(text) if m == "."]
            live = rules.replies(text, empty, hold=True)
            assert live == [c for c in empty if not dead(p, c)]


def test_keys_carry_the_side_to_move_only_where_the_counts_do_not_give_it() -> None:
    rules = Rules(3, 3, 3)
    assert rules.key("X...O....") == "X../.O./..."
    assert rules.key("X...O....", "X") == "X../.O./..."
    assert rules.key("X...O....", "O") == "X../.O./... O"
    assert rules.key("XX.......", "O") == "XX./.../... O"
    assert rules.key("X........", "O") == "X../.../..."
    assert rules.key("OO.......", "X") == "OO./.../... X"


def test_a_start_no_game_reaches_is_refused() -> None:
    rules = Rules(3, 3, 3)
    assert rules.start("X../.O./...") == "X...O...."
    for text in ("XX./.../...", "XXX/OOO/...", "XXX/OO./...", "XOX/XOO/OXX"):
        with pytest.raises(CertificateError):
            rules.start(text)
