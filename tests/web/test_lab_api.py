"""The lab's API against a real ``ttt serve``: training jobs in their own processes, their
event streams, stopping, the job limit, and the arena, mistakes and exact values."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import pids_where, ttt
from tests.web.conftest import call, start_serve, stop_serve
from tttlab.web.compute import ApiError
from tttlab.web.pool import Pool

LONG = {"algorithm": "q", "board": "3x4k3", "episodes": 50_000_000}
BIG = ("--max-episodes", "100000000")


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("lab")
    proc, url = start_serve(folder, *BIG)
    yield url, folder
    stop_serve(proc)


def events(url: str, job: str, until: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Read the job's event stream to its end, or until the first event of kind ``until``."""
    found: list[tuple[str, dict[str, Any]]] = []
    kind = None
    with urllib.request.urlopen(f"{url}/api/train/{job}/events", timeout=120) as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                assert kind is not None
                found.append((kind, json.loads(line[6:])))
                if kind == until:
                    break
    return found


def start_long_job(url: str, name: str) -> dict[str, Any]:
    """Start a job far too long to finish, and wait until it has trained a batch."""
    status, started = call(url, "POST", "/api/train", {**LONG, "name": name})
    assert status == 202
    first = events(url, started["job"], until="progress")
    assert first[0][0] == "progress"
    return dict(started)


def test_a_job_streams_progress_then_done_and_replays(lab: tuple[str, Path]) -> None:
    url, folder = lab
    status, started = call(
        url, "POST", "/api/train", {"algorithm": "q", "episodes": 20_000, "seed": 0, "name": "q20k"}
    )
    assert status == 202
    assert started["agent"] == "q20k.npz"
    live = events(url, started["job"])
    kinds = [k for k, _ in live]
    assert kinds == ["progress"] * (len(kinds) - 1) + ["done"]
    points = [d for k, d in live if k == "progress" and "metrics" in d]
    assert len(points) == 20  # the trainer's default: 20 exact points
    final = points[-1]["metrics"]
    assert final["X"]["optimal_share"] == 1.0
    assert final["O"]["optimal_share"] == 1.0
    done = live[-1][1]
    assert done["agent"] == "q20k.npz"
    assert done["interrupted"] is False
    assert done["evaluation"]["X"]["worst_case"] == 0
    # A client that comes after the end is replayed every event, the same.
    assert events(url, started["job"]) == live
    assert (folder / "q20k.npz").is_file()
    names = [a["name"] for a in call(url, "GET", "/api/agents")[1]["agents"]]
    assert "q20k.npz" in names
    listed = {j["job"]: j for j in call(url, "GET", "/api/train")[1]["jobs"]}
    assert listed[started["job"]]["state"] == "done"
    assert listed[started["job"]]["episode"] == 20_000
    # The same name again is refused, not overwritten.
    status, body = call(
        url, "POST", "/api/train", {"algorithm": "q", "episodes": 10, "name": "q20k"}
    )
    assert status == 409
    assert "already exists" in body["error"]


def test_limit_429_and_stop_keeps_a_playable_agent(lab: tuple[str, Path]) -> None:
    url, folder = lab
    started = start_long_job(url, "stopped")
    status, body = call(url, "POST", "/api/train", {"algorithm": "q", "episodes": 100})
    assert status == 429
    assert "already running" in body["error"]
    status, stopped = call(url, "DELETE", f"/api/train/{started['job']}")
    assert status == 200
    assert stopped["state"] == "stopped"
    assert 0 < stopped["episode"] < LONG["episodes"]
    assert stopped["evaluation"]["X"]["decision_positions"] > 0
    stream = events(url, started["job"])
    assert stream[-1][0] == "done"
    assert stream[-1][1]["interrupted"] is True
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]
    status, moved = call(
        url,
        "POST",
        "/api/move",
        {"position": "............", "agent": "stopped.npz", "board": "3x4k3"},
    )
    assert status == 200
    assert moved["position"].count("X") == 1
    # Stopping a finished job answers its summary again.
    assert call(url, "DELETE", f"/api/train/{started['job']}")[1]["state"] == "stopped"


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"algorithm": "qq", "episodes": 10}, 400, "unknown algorithm"),
        ({"algorithm": "q", "episodes": 10, "board": "4x4k4"}, 400, "too large"),
        ({"algorithm": "q", "episodes": 10, "board": "3x3k9"}, 400, "3x3"),
        ({"algorithm": "q", "episodes": 10, "name": "../escape"}, 400, "must be letters"),
        ({"algorithm": "q", "episodes": 10, "name": ".hidden"}, 400, "must be letters"),
        ({"algorithm": "q", "episodes": 10**9}, 400, "limited to 100,000,000"),
        ({"algorithm": "q", "episodes": 0}, 422, "episodes"),
        ({"algorithm": "q", "episodes": 10, "hyperparameters": {"alpha": 3}}, 400, "alpha"),
        (
            {"algorithm": "q", "episodes": 10, "hyperparameters": {"simulations": 3}},
            400,
            "does not apply",
        ),
        ({"algorithm": "q", "episodes": 10, "extra": 1}, 422, "extra"),
    ],
)
def test_bad_train_requests(lab: tuple[str, Path], body: Any, status: int, words: str) -> None:
    url, _ = lab
    got, answer = call(url, "POST", "/api/train", body)
    assert got == status
    assert words in answer["error"]
    assert "\n" not in answer["error"]


def test_unknown_jobs_are_404(lab: tuple[str, Path]) -> None:
    url, _ = lab
    assert call(url, "DELETE", "/api/train/nothing")[0] == 404
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(f"{url}/api/train/nothing/events", timeout=10)
    assert caught.value.code == 404


def _trainer_pids(out: Path) -> list[int]:
    def trains(entry: Path) -> bool:
        cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        return str(out).encode() in cmdline and b"train" in cmdline

    return pids_where(trains)


def test_killing_the_server_leaves_no_partial_agent(tmp_path: Path) -> None:
    proc, url = start_serve(tmp_path, *BIG)
    try:
        start_long_job(url, "orphan")
        assert _trainer_pids(tmp_path / "orphan.npz")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 60
    while _trainer_pids(tmp_path / "orphan.npz") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _trainer_pids(tmp_path / "orphan.npz"), "the trainer outlived its server"
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_clean_shutdown_stops_jobs_and_keeps_what_they_learned(tmp_path: Path) -> None:
    proc, url = start_serve(tmp_path, *BIG)
    try:
        start_long_job(url, "kept")
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.npz"]
    assert ttt("eval", str(tmp_path / "kept.npz"), "--json").returncode == 0


def _train_into(folder: Path, name: str, seed: int) -> None:
    trained = ttt(
        "train", "q", "--episodes", "500", "--seed", str(seed), "--out", str(folder / name)
    )
    assert trained.returncode == 0, trained.stderr


def test_arena_matches_the_command_line(lab: tuple[str, Path]) -> None:
    url, folder = lab
    _train_into(folder, "q500.npz", seed=2)
    names = ["perfect", "random", "q500.npz"]
    status, answer = call(
        url, "POST", "/api/arena", {"agents": names, "games": 10, "seed": 3, "board": "3x3k3"}
    )
    assert status == 200
    cli = ttt("arena", *names, "--games", "10", "--seed", "3", "--json", cwd=str(folder))
    assert cli.returncode == 0, cli.stderr
    assert answer == json.loads(cli.stdout)
    bad = call(url, "POST", "/api/arena", {"agents": ["perfect", "perfect"]})
    assert bad[0] == 400
    assert call(url, "POST", "/api/arena", {"agents": ["perfect", "ghost"]})[0] == 404


def test_mistakes_and_exact_values(lab: tuple[str, Path]) -> None:
    url, folder = lab
    _train_into(folder, "early.npz", seed=4)
    status, found = call(
        url, "POST", "/api/mistakes", {"agent": "early.npz", "seat": "X", "limit": 5}
    )
    assert status == 200
    assert found["total"] == round(found["decision_positions"] * (1 - found["optimal_share"]))
    assert 0 < len(found["mistakes"]) <= 5
    first = found["mistakes"][0]
    status, exact = call(url, "POST", "/api/exact", {"position": first["position"]})
    assert status == 200
    assert exact["value"] == first["value"]
    assert exact["values"] == first["values"]
    status, after_corner = call(url, "POST", "/api/exact", {"position": "X........"})
    assert after_corner == {
        "value": 0,
        "values": {str(m): -1 for m in range(1, 9) if m != 4} | {"4": 0},
    }
    assert call(url, "POST", "/api/mistakes", {"agent": "perfect"})[1]["mistakes"] == []
    assert call(url, "POST", "/api/exact", {"position": "XXX/OO./..."})[0] == 409


def test_work_past_its_limit_is_ended() -> None:
    pool = Pool(1)
    try:
        pool.start()
        args = {"board": "3x4k3", "position": "............"}
        with pytest.raises(ApiError) as caught:
            pool.call("exact", args, timeout=0.001)  # solving 3x4 takes far longer
        assert caught.value.status == 503
        assert "stopped" in caught.value.message
        # Its worker was killed and replaced: the next call is answered.
        assert pool.call("exact", {"board": "3x3k3", "position": "X........"}, 60)["value"] == 0
        assert len(pool._all) == 1
    finally:
        pool.close()


def test_notebooks_and_the_page_draw_one_picture() -> None:
    from fastapi.testclient import TestClient

    from tttlab.game import Position
    from tttlab.web.app import create_app

    position = Position.from_string("XXO/OO./X.X")
    served = TestClient(create_app(None)).post("/api/svg", json={"position": "XXO/OO./X.X"})
    assert served.status_code == 200
    assert served.headers["content-type"].startswith("image/svg+xml")
    assert served.text == position._repr_svg_()
    assert position._repr_svg_().count('class="win"') == 0
    assert Position.from_string("XXX/OO./...")._repr_svg_().count('class="win"') == 3


def _children(parent: int) -> list[int]:
    return pids_where(lambda entry: f"\nPPid:\t{parent}\n" in (entry / "status").read_text())


def test_slow_agent_work_never_holds_up_stopping_a_job(tmp_path: Path) -> None:
    """Waits for agent work shared the event loop's six default threads with ``DELETE``: a
    few slow requests left stopping a job (and shutting down) waiting behind them."""
    import concurrent.futures

    proc, url = start_serve(tmp_path, *BIG)
    slow = {"agent": "mcts", "board": "3x4k3"}  # judging MCTS on 3x4 exactly takes minutes
    clients = concurrent.futures.ThreadPoolExecutor(12)
    try:
        started = start_long_job(url, "busy")
        pending = [clients.submit(call, url, "POST", "/api/evaluate", slow) for _ in range(12)]
        time.sleep(1.0)  # every slow request has arrived (each takes its 10 s limit)
        request = urllib.request.Request(f"{url}/api/train/{started['job']}", method="DELETE")
        with urllib.request.urlopen(request, timeout=8) as response:  # not behind the work
            assert json.loads(response.read())["state"] == "stopped"
        assert any(not f.done() for f in pending)  # slow work was still going on
    finally:
        children = _children(proc.pid)  # the pool's workers, busy with the slow work
        proc.kill()  # no need to wait for the slow requests
        proc.wait()
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        clients.shutdown(wait=False, cancel_futures=True)
    assert (tmp_path / "busy.npz").exists()
