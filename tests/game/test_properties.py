"""One property suite over every geometry: the invariants of the rules (pgx's api_test; the
state space's tables against the rules: tests/game/test_statespace.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given

from tests.conftest import games
from tttlab.game import Geometry, IllegalMoveError, Position


@given(games())
def test_legal_moves_until_the_end(game: tuple[Geometry, list[Position]]) -> None:
    _, played = game
    for before, after in itertools.pairwise(played):
        assert before.legal_moves
        assert not before.is_terminal
        assert after.ply == before.ply + 1
        assert after.to_move is before.to_move.other
    last = played[-1]
    if last.is_terminal:
        assert last.legal_moves == ()
        for move in range(last.geometry.cells):
            with pytest.raises(IllegalMoveError):
                last.apply(move)
    else:
        assert last.legal_moves


@given(games())
def test_id_round_trip(game: tuple[Geometry, list[Position]]) -> None:
    g, played = game
    for p in played:
        assert Position.from_id(p.id, g) == p
        assert Position.from_string(p.to_string("/"), g) == p
        assert Position.from_string(p.to_string(), g) == p


@given(games())
def test_canonical_id_invariant_under_symmetry(game: tuple[Geometry, list[Position]]) -> None:
    g, played = game
    p = played[-1]
    ids = {p.transform(perm).id for perm in g.symmetries}
    assert p.canonical_id == min(ids)
    for perm in g.symmetries:
        image = p.transform(perm)
        assert image.canonical_id == p.canonical_id
        # Symmetry preserves the rules' verdicts.
        assert image.winner == p.winner
        assert image.is_terminal == p.is_terminal


@given(games())
def test_winner_only_through_last_move(game: tuple[Geometry, list[Position]]) -> None:
    _, played = game
    for before, after in itertools.pairwise(played):
        assert before.winner is None
        if after.winner is not None:
            assert after.winner is before.to_move


@given(games())
def test_completes_line_is_the_rules_winner(game: tuple[Geometry, list[Position]]) -> None:
    """The batched check (every move of the game at once, with and without the always-empty
    column) says a move won exactly where the rules say the game was won by it."""
    geometry, played = game
    pairs = list(itertools.pairwise(played))
    if not pairs:
        return
    boards = np.array([y.cells for _, y in pairs], dtype=np.int8)
    moves = np.argmax(boards != np.array([x.cells for x, _ in pairs]), axis=1)
    pieces = np.array([int(x.to_move) for x, _ in pairs])
    expected = [y.winner is not None for _, y in pairs]
    assert geometry.completes_line(boards, moves, pieces).tolist() == expected
    padded = np.concatenate([boards, np.zeros((len(boards), 1), np.int8)], axis=1)
    assert geometry.completes_line(padded, moves, pieces).tolist() == expected
