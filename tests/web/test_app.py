"""The JSON API through FastAPI's test client: every bad input is a 4xx with one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tttlab.io import save_agent
from tttlab.learners import Trainer, default_config
from tttlab.web.app import create_app
from tttlab.web.middleware import MAX_BODY


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("agents")
    trainer = Trainer(default_config("q", 20_000, seed=0))
    trainer.run()
    save_agent(
        path / "q.npz",
        trainer.agent(),
        episodes=trainer.done,
        seed=0,
        hyperparameters=trainer.config.header(),
    )
    (path / "broken.npz").write_bytes(b"not an agent")
    outside = tmp_path_factory.mktemp("outside")
    save_agent(outside / "secret.npz", trainer.agent(), episodes=1, seed=0, hyperparameters={})
    os.symlink(outside / "secret.npz", path / "link.npz")
    return path


@pytest.fixture(scope="module")
def client(folder: Path) -> TestClient:
    return TestClient(create_app(folder))


def test_agents_lists_builtins_and_good_files_only(client: TestClient) -> None:
    names = [a["name"] for a in client.get("/api/agents").json()["agents"]]
    assert names == ["random", "perfect", "minimax", "mcts", "q.npz"]


def test_move_returns_the_documented_fields(client: TestClient) -> None:
    r = client.post("/api/move", json={"position": "X........", "agent": "perfect"})
    assert r.status_code == 200
    data = r.json()
    assert set(data) >= {"move", "values", "position", "result", "winning_line", "to_move"}
    assert data["move"] == 4  # the only reply to a corner that does not lose
    assert data["position"] == "X...O...."
    assert data["result"] is None
    assert data["values"]["4"] == 0.0


def test_move_that_ends_the_game(client: TestClient) -> None:
    data = client.post("/api/move", json={"position": "XX./OO./...", "agent": "perfect"}).json()
    assert data["result"] == "X"
    assert data["winning_line"] == [0, 1, 2]
    assert data["to_move"] is None


def test_play_and_values(client: TestClient) -> None:
    data = client.post("/api/play", json={"position": ".........", "move": 4}).json()
    assert data["position"] == "....X...."
    values = client.post("/api/values", json={"position": "....X....", "agent": "q.npz"}).json()
    assert set(values["values"]) == {"0", "1", "2", "3", "5", "6", "7", "8"}
    bigger = client.post("/api/play", json={"position": "....", "move": 0, "board": "2x2k2"})
    assert bigger.json()["position"] == "X..."


def test_evaluate_matches_ttt_eval(client: TestClient) -> None:
    data = client.post("/api/evaluate", json={"agent": "random"}).json()
    assert data["X"]["vs_random"]["win"] == pytest.approx(737 / 1260)


def test_openapi_documents_the_api(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert {"/api/agents", "/api/move", "/api/play", "/api/values", "/api/evaluate"} <= set(
        schema["paths"]
    )


@pytest.mark.parametrize(
    ("path", "body", "status", "fragment"),
    [
        ("/api/move", {"position": "XZ.......", "agent": "perfect"}, 422, "position: String"),
        ("/api/move", {"position": "", "agent": "perfect"}, 422, "position"),
        ("/api/move", {"position": "XX", "agent": "perfect"}, 400, "9 cells"),
        ("/api/move", {"position": "OO.......", "agent": "perfect"}, 400, "X moves first"),
        ("/api/move", {"position": "XXX/OO./...", "agent": "perfect"}, 409, "game is over"),
        ("/api/move", {"position": ".........", "agent": "ghost"}, 404, "unknown agent"),
        (
            "/api/move",
            {"position": ".........", "agent": "broken.npz"},
            400,
            "broken.npz is not a tttlab agent file",
        ),
        (
            "/api/move",
            {"position": ".........", "agent": "../outside/secret.npz"},
            404,
            "unknown agent",
        ),
        ("/api/move", {"position": ".........", "agent": "/etc/passwd"}, 404, "unknown agent"),
        ("/api/move", {"position": ".........", "agent": "link.npz"}, 404, "unknown agent"),
        ("/api/move", {"position": 5, "agent": "perfect"}, 422, "position"),
        ("/api/move", {"position": "........."}, 422, "agent"),
        ("/api/move", {"position": ".........", "agent": "perfect", "extra": 1}, 422, "extra"),
        ("/api/move", [1, 2], 422, "valid"),
        (
            "/api/move",
            {"position": ".........", "agent": "perfect", "board": "0x3"},
            400,
            "at least 1",
        ),
        (
            "/api/move",
            {"position": "................", "agent": "perfect", "board": "4x4k4"},
            400,
            "perfect needs",
        ),
        ("/api/play", {"position": "X........", "move": 0}, 400, "occupied"),
        ("/api/play", {"position": "X........", "move": 99}, 400, "out of range"),
        ("/api/play", {"position": "X........", "move": "4"}, 422, "move"),
        ("/api/play", {"position": "XXX/OO./...", "move": 8}, 409, "game is over"),
        ("/api/evaluate", {"agent": "ghost"}, 404, "unknown agent"),
        ("/api/evaluate", {"agent": "perfect", "board": "5x5k4"}, 400, "too large"),
    ],
)
def test_bad_input(client: TestClient, path: str, body: object, status: int, fragment: str) -> None:
    r = client.post(path, json=body)
    assert r.status_code == status, r.text
    message = r.json()["error"]
    assert fragment in message
    assert "\n" not in message
    assert "/tmp" not in message  # no paths of the server's machine


def test_malformed_json_and_big_bodies(client: TestClient) -> None:
    r = client.post("/api/move", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422
    assert r.json()["error"] == "the request body is not valid JSON"
    big = json.dumps({"position": "." * (MAX_BODY + 10), "agent": "perfect"})
    r = client.post("/api/move", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert client.get("/api/nothing").status_code == 404


def test_a_seat_the_agent_cannot_play(folder: Path) -> None:
    from tttlab.agents import RandomAgent
    from tttlab.game import Geometry, Player

    trainer = Trainer(
        default_config("q", 2_000, seat=Player.X, opponent="random"), RandomAgent(Geometry())
    )
    trainer.run()
    save_agent(folder / "x-only.npz", trainer.agent(), episodes=2_000, seed=0, hyperparameters={})
    client = TestClient(create_app(folder))
    r = client.post("/api/move", json={"position": "X........", "agent": "x-only.npz"})
    assert r.status_code == 409
    assert "trained to play X only" in r.json()["error"]
    assert client.post(
        "/api/values", json={"position": "X........", "agent": "x-only.npz"}
    ).json() == {"values": None}


def test_svg_is_the_notebook_drawing(client: TestClient) -> None:
    from tttlab.game import Position
    from tttlab.render import board_svg

    response = client.post("/api/svg", json={"position": "XXX/OO./..."})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert response.text == board_svg(Position.from_string("XXX/OO./..."))
    bad = client.post("/api/svg", json={"position": "XXXX"})
    assert bad.status_code == 400
    assert "error" in bad.json()
