"""The lab's Check section on the server (:mod:`tttlab.web.checking`): an upload is graded in
its box as ``ttt check --json``, refused in one line when too big or badly named, stopped
when the page goes away; and where no box can be made, no code runs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.cli.helpers import pids_where
from tests.web.conftest import call, start_serve, stop_serve
from tttlab.web.checking import Places

CORPUS = Path(__file__).resolve().parents[1] / "usercode" / "corpus"


def _descendants(root: int) -> list[int]:
    """Every process below ``root``, found by walking /proc's parent links."""
    parents: dict[int, int] = {}
    for pid in pids_where(lambda entry: True):
        with contextlib.suppress(OSError, ValueError, IndexError):
            status = (Path("/proc") / str(pid) / "status").read_text()
            parents[pid] = int(status.split("\nPPid:\t", 1)[1].split("\n", 1)[0])
    found, frontier = [], [root]
    while frontier:
        below = [pid for pid, parent in parents.items() if parent in frontier]
        found += below
        frontier = below
    return found


def _graders(root: int) -> list[int]:
    """The grading boxes' callers (``__main__.py caller`` in each box) below the server
    ``root``."""
    out = []
    for pid in _descendants(root):
        with contextlib.suppress(OSError):
            if b"__main__.py\0caller" in (Path("/proc") / str(pid) / "cmdline").read_bytes():
                out.append(pid)
    return out


def test_check_grades_an_upload_in_its_box_and_stops_when_the_page_goes_away(
    tmp_path: Path,
) -> None:
    proc, url = start_serve(tmp_path)
    try:
        status, info = call(url, "GET", "/api/check")
        assert status == 200
        assert info["available"] is True, info  # make test installs bubblewrap
        source = (CORPUS / "memo_minimax.py").read_text()
        buggy = source.replace("not (0 <= i < 3 and 0 <= j < 3) or ", "")
        status, report = call(url, "POST", "/api/check", {"source": buggy, "only": ["result"]})
        assert status == 200, report
        assert report["file"] == "tictactoe.py"
        assert report["status"] == "fail"
        assert report["isolation"] == "bubblewrap"
        example = report["checks"]["result"]["example"]
        assert "should raise an exception" in example["repro"]
        assert example["svg"].startswith("<svg")
        # Too big, or not a file name: refused in one line.
        big = {"source": "x" * (64 * 1024 + 1)}
        assert call(url, "POST", "/api/check", big)[0] == 422
        assert call(url, "POST", "/api/check", {"source": "x", "name": "../a.py"})[0] == 422
        # A minimax that never returns, and a client that leaves after three seconds.
        slow = source.replace(
            "def minimax(board):\n", "def minimax(board):\n    while True:\n        pass\n"
        )
        body = json.dumps({"source": slow, "only": ["minimax"]}).encode()
        request = urllib.request.Request(
            url + "/api/check", data=body, headers={"Content-Type": "application/json"}
        )
        with pytest.raises(TimeoutError):  # the client's own timeout: it goes away
            urllib.request.urlopen(request, timeout=3)
        deadline = time.monotonic() + 30  # seconds, however busy the machine
        while _graders(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _graders(proc.pid) == []  # the box was stopped with the page
        # and the server grades the next one: its place was given back, or is being given
        # back (the worker killed, a new one started), and the upload waits for it
        status, again = call(url, "POST", "/api/check", {"source": source, "only": ["player"]})
        assert status == 200, again
        assert again["ok"] is True
        # A learning agent is detected and checked on its own episodes: a sweep run forwards.
        agent = (CORPUS / "td_agent" / "agent.py").read_text()
        forwards = agent.replace("reversed(self.state_history)", "self.state_history")
        assert forwards != agent
        upload = {"source": forwards, "name": "agent.py", "only": ["update"]}
        status, learned = call(url, "POST", "/api/check", upload)
        assert status == 200, learned
        assert learned["exercise"] == "td-agent"
        assert learned["checks"]["update"]["status"] == "fail"
        assert "the backward sweep" in learned["checks"]["update"]["example"]["expected"]
    finally:
        stop_serve(proc)


def test_check_runs_no_code_where_no_box_can_be_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastapi.testclient import TestClient

    from tttlab.usercode import box
    from tttlab.web.app import create_app

    reason = "not contained by a box: bubblewrap (bwrap) is not installed"
    monkeypatch.setattr(box, "isolation", lambda: box.Isolation(False, reason))
    with TestClient(create_app(tmp_path)) as client:
        assert client.get("/api/check").json()["available"] is False
        refused = client.post("/api/check", json={"source": "def minimax(board): pass\n"})
    assert refused.status_code == 503
    assert refused.json() == {"error": f"this server runs no uploaded code: {reason}"}


def test_a_place_comes_back_when_its_work_has_ended_and_an_upload_waits_for_one_stopping() -> None:
    """The review's failure on a busy machine: the page had gone away, its box was gone, but
    the next upload was refused, its place not yet given back. A place comes back only once
    its work has ended (never more boxes than places); an upload that finds every place
    taken waits for one that is being stopped, and is refused at once when none is."""
    places = Places(1)
    first = places.take()
    assert first is not None
    assert places.take() is None
    assert asyncio.run(places.wait(30)) is None  # the one running is not stopping: refused
    ended = threading.Event()

    def work(cancel: threading.Event) -> str:
        cancel.wait()  # the pool's call returns once its worker is killed
        time.sleep(0.5)  # killing it and starting another take a while
        ended.set()
        return "stopped"

    thread = threading.Thread(target=first.run(work))
    thread.start()
    first.stop()  # the page went away
    assert places.take() is None  # its work has not ended yet

    async def next_upload() -> bool:
        second = await places.wait(30)
        return second is not None and ended.is_set()

    assert asyncio.run(next_upload())  # it waited for the place, and got it once freed
    thread.join()
    assert places.free == 0
    assert places.stopping == 0
