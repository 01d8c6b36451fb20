"""The round robin (``tttlab.evaluation.arena``): every game of every pairing is counted."""

from __future__ import annotations

import numpy as np

from tttlab.agents import PerfectAgent, RandomAgent
from tttlab.evaluation import round_robin
from tttlab.game import Geometry


def test_arena_counts_every_game() -> None:
    rng = np.random.default_rng(0)
    agents = [PerfectAgent(Geometry()), RandomAgent(Geometry())]
    pairings, standings = round_robin(agents, Geometry(), 20, rng)
    assert len(pairings) == 2
    for p in pairings:
        assert p.x_wins + p.o_wins + p.draws == 20
    assert standings["perfect"].loss == 0
    assert standings["random"].win == 0
    assert standings["perfect"].win + standings["perfect"].draw == 40
