"""The web API serves network agent files like table agents (no JAX needed)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.agents.test_network import random_network
from tttlab.evaluation import evaluate_seats
from tttlab.game import DEFAULT, Position
from tttlab.io import save_agent
from tttlab.web.app import create_app


@pytest.mark.parametrize(("algorithm", "perspective"), [("alphazero", "mover"), ("dqn", "x")])
def test_network_agent_is_listed_played_and_evaluated(
    tmp_path: Path, algorithm: str, perspective: str
) -> None:
    agent = random_network(algorithm=algorithm, seed=5)
    agent = dataclasses.replace(
        agent, architecture=dataclasses.replace(agent.architecture, perspective=perspective)
    )
    save_agent(tmp_path / "az.npz", agent, episodes=1, seed=0, hyperparameters={})
    client = TestClient(create_app(tmp_path))
    listed = {a["name"]: a for a in client.get("/api/agents").json()["agents"]}
    assert listed["az.npz"]["algorithm"] == algorithm
    assert listed["az.npz"]["seats"] == ["X", "O"]
    reply = client.post("/api/move", json={"position": "X........", "agent": "az.npz"})
    assert reply.status_code == 200
    body = reply.json()
    assert body["move"] in agent.move_probabilities(Position.from_string("X........"))
    assert set(body["values"]) == {str(m) for m in range(1, 9)}
    exact = client.post("/api/evaluate", json={"agent": "az.npz"}).json()
    expected = evaluate_seats(agent, DEFAULT)
    assert exact["X"]["optimal_share"] == expected["X"].optimal_share


def test_a_loaded_network_agent_shows_its_exact_evaluation(tmp_path: Path) -> None:
    import tttlab
    from tttlab.agents.network import NetworkAgent

    save_agent(
        tmp_path / "dqn.npz",
        random_network(algorithm="dqn", seed=3),
        episodes=7,
        seed=0,
        hyperparameters={},
    )
    agent = tttlab.load(tmp_path / "dqn.npz")
    assert isinstance(agent, NetworkAgent)
    shown = agent._repr_html_()  # type: ignore[attr-defined]
    assert "dqn" in shown
    assert "7 self-play games" in shown
    report = tttlab.evaluate(agent)
    assert f"{report.X.optimal_share:.4f}" in shown
    assert tttlab.evaluate(agent).to_dict() == tttlab.evaluate(tmp_path / "dqn.npz").to_dict()
