"""AGENT arguments resolved (:mod:`tttlab.io.resolve`): built-in names and files, an unknown
name in one line, and a network file's ``:N`` suffix for search."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.test_network import random_network
from tests.io.test_agentfile import _good
from tests.io.test_networkfile import _save
from tttlab.agents import AgentError
from tttlab.agents.network import NetworkAgent
from tttlab.game import Position
from tttlab.io import AgentFileError, file_agent, resolve_agent, save_agent
from tttlab.learners import Trainer, default_config


def test_resolve_names_and_files(tmp_path: Path) -> None:
    assert resolve_agent("perfect").name == "perfect"
    path = _good(tmp_path)
    assert resolve_agent(str(path)).name == "good.npz"
    with pytest.raises(AgentError, match="not a built-in"):
        resolve_agent(str(tmp_path / "nothing.npz"))
    assert issubclass(AgentFileError, AgentError)


def test_search_suffix(tmp_path: Path) -> None:
    path = _save(random_network(), tmp_path / "az.npz")
    searching = file_agent(f"{path}:25")
    assert isinstance(searching, NetworkAgent)
    assert searching.simulations == 25
    assert searching.name == "az.npz:25"
    position = Position.from_string("XX./OO./...")
    assert set(searching.move_probabilities(position)) <= set(position.legal_moves)
    for bad in (f"{path}:x", f"{path}:0"):
        with pytest.raises(AgentError):
            file_agent(bad)
    table = tmp_path / "q.npz"
    save_agent(
        table, Trainer(default_config("q", 1)).agent(), episodes=1, seed=0, hyperparameters={}
    )
    with pytest.raises(AgentError, match="only network agents"):
        file_agent(f"{table}:10")
    dqn = _save(random_network(algorithm="dqn"), tmp_path / "dqn.npz")
    with pytest.raises(AgentError, match="policy-and-value"):
        file_agent(f"{dqn}:10")
