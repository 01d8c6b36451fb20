"""The agents the API hands out (:mod:`tttlab.api.agents`): what ``load`` returns, and the
one surface of learned agents (``save``, ``evaluation``, the notebook's table)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tttlab
from tttlab.agents import PerfectAgent
from tttlab.api import TrainedAgent, TrainedNetwork


def test_load_says_what_it_returns_and_file_agents_share_one_surface(tmp_path: Path) -> None:
    table = tttlab.train("q", episodes=2000, seed=0, progress=False)
    # the Python reference's run (and tests/typecheck's): JAX's persistent cache compiles it once
    network = tttlab.train("dqn", episodes=256, seed=0, progress=False, batch=64, updates=2)
    assert isinstance(table, TrainedAgent)
    assert isinstance(network, TrainedNetwork)
    for agent in (table, network):
        path = agent.save(tmp_path / f"{agent.algorithm}.npz")
        loaded = tttlab.load(path)
        assert type(loaded) is type(agent)
        assert loaded.evaluation().to_dict() == agent.evaluation().to_dict()
        assert loaded.save(tmp_path / "again.npz").read_bytes() == path.read_bytes()
        assert "<table" in loaded._repr_html_()
    assert isinstance(tttlab.load("perfect"), PerfectAgent)


def test_save_load_round_trip(tmp_path: Path) -> None:
    agent = tttlab.train("sarsa", episodes=3000, seed=0, progress=False)
    path = agent.save(tmp_path / "s.npz")
    loaded = tttlab.load(path)
    assert isinstance(loaded, TrainedAgent)
    for name in agent.tables:
        assert np.array_equal(agent.tables[name], loaded.tables[name])
    assert tttlab.evaluate(loaded).to_dict() == tttlab.evaluate(agent).to_dict()
    assert "<table" in loaded._repr_html_()
    assert tttlab.load("mcts:50").name.startswith("mcts")


def test_a_damaged_agent_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.npz"
    path.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(tttlab.TttlabError, match=r"bad\.npz"):
        tttlab.load(path)
