"""The reachable state space (:mod:`tttlab.game.statespace`): its tables agree with the rules,
every position a game reaches is in it, and an id no game reaches is not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import SMALL_GEOMETRIES, games
from tttlab.game import Geometry, Player, Position, state_space


@pytest.mark.parametrize("geometry", SMALL_GEOMETRIES, ids=str)
def test_state_space_tables_agree_with_rules(geometry: Geometry) -> None:
    space = state_space(geometry)
    assert space.ids[0] == 0
    assert (space.ids[1:] > space.ids[:-1]).all()
    for i in range(0, space.size, max(1, space.size // 500)):
        p = space.position(i)
        assert p.id == int(space.ids[i])
        assert space.index(p) == i
        assert bool(space.terminal[i]) == p.is_terminal
        assert int(space.winner[i]) == (int(p.winner) if p.winner else 0)
        assert int(space.to_move[i]) == int(p.to_move)
        legal = {int(m) for m in range(geometry.cells) if space.next[i, m] >= 0}
        assert legal == set(p.legal_moves)
        for m in p.legal_moves:
            assert space.position(int(space.next[i, m])) == p.apply(m)
        c = int(space.canonical[i])
        assert int(space.ids[c]) == p.canonical_id
        perm = geometry.symmetries[int(space.symmetry[i])]
        assert p.transform(perm) == space.position(c)


@settings(max_examples=50)
@given(st.sampled_from(SMALL_GEOMETRIES), st.data())
def test_every_reachable_game_position_is_in_the_table(
    geometry: Geometry, data: st.DataObject
) -> None:
    _, played = data.draw(games(geometry))
    space = state_space(geometry)
    for p in played:
        assert space.find(p.id) >= 0


def test_unreachable_ids_are_not_found() -> None:
    space = state_space(Geometry())
    assert space.find(1 + 3) == -1  # two X and no O
    with pytest.raises(ValueError, match="not reachable"):
        space.index(Position(Geometry(), (1, 1, 0, 0, 0, 0, 0, 0, 0)))
    assert Player(int(space.to_move[0])) is Player.X
