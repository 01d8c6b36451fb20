""":mod:`tttlab.usercode.reference`: the course's TD(0) program that the reference speed is
measured with. It must stay the course's program (the speed is only comparable if the work
is the same): its initial values agree with tttlab's own rules on every reachable board, and
self-play moves the values of the states it visits, and no other."""

from __future__ import annotations

import numpy as np

from tttlab.game import Geometry, state_space
from tttlab.usercode.reference import Environment, initial_values, train


def test_the_initial_values_agree_with_tttlabs_rules_on_every_reachable_board() -> None:
    space = state_space(Geometry(3, 3, 3))
    x, o = initial_values(Environment().x), initial_values(Environment().o)
    for state, winner, ended in zip(space.ids, space.winner, space.terminal, strict=True):
        wanted_x = (1.0 if winner == 1 else 0.0) if ended else 0.5
        wanted_o = (1.0 if winner == 2 else 0.0) if ended else 0.5
        assert (x[state], o[state]) == (wanted_x, wanted_o), state


def test_self_play_moves_only_the_values_of_states_it_reached() -> None:
    env = Environment()
    before = initial_values(env.x)
    p1, _ = train(50, seed=3)
    changed = np.flatnonzero(before != p1.V)
    assert len(changed) > 0
    reachable = set(state_space(Geometry(3, 3, 3)).ids.tolist())
    assert set(changed.tolist()) <= reachable
    assert np.all((p1.V >= 0) & (p1.V <= 1))
