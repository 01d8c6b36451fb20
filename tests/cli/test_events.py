"""``ttt train --events``: JSON lines while training, the same numbers as --log and --json."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from tests.cli.helpers import start_ttt, ttt
from tttlab.io import load_agent_file


def _lines(text: str) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in text.splitlines()]


def test_events_match_the_log_and_the_summary(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    files = ["--out", str(tmp_path / "a.npz"), "--log", str(tmp_path / "log.jsonl")]
    r = ttt("train", "q", "--episodes", "20000", *files, "--events", str(events), "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    lines = _lines(events.read_text())
    progress = [e for e in lines if e["event"] == "progress"]
    assert [e["event"] for e in lines] == ["progress"] * len(progress) + ["saving", "done"]
    assert [e["episode"] for e in progress] == sorted({e["episode"] for e in progress})
    assert progress[-1]["episode"] == 20000
    assert all(e["episodes"] == 20000 and e["episodes_per_second"] > 0 for e in progress)
    # Every exact curve point of --log, after the first (episode 0), arrives as metrics.
    log = _lines((tmp_path / "log.jsonl").read_text())
    with_metrics = [{"episode": e["episode"], **e["metrics"]} for e in progress if "metrics" in e]
    assert with_metrics == log[1:]
    done = lines[-1]
    assert done["agent"] == str(tmp_path / "a.npz")
    assert done["episodes"] == 20000
    assert done["interrupted"] is False
    assert done["evaluation"] == summary["evaluation"]


def test_events_on_stdout_replace_the_summary(tmp_path: Path) -> None:
    r = ttt(
        "train", "sarsa", "--episodes", "3000", "--out", str(tmp_path / "a.npz"), "--events", "-"
    )
    assert r.returncode == 0, r.stderr
    lines = _lines(r.stdout)  # nothing but event lines
    assert lines[-1]["event"] == "done"
    assert (
        ttt(
            "train",
            "q",
            "--episodes",
            "10",
            "--out",
            str(tmp_path / "b.npz"),
            "--events",
            "-",
            "--json",
        ).returncode
        == 2
    )


def test_sigterm_saves_and_says_done_interrupted(tmp_path: Path) -> None:
    out = tmp_path / "long.npz"
    args = ["--board", "3x4", "--k", "3", "--episodes", "2000000000", "--events", "-"]
    proc = start_ttt("train", "q", *args, "--out", out)
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())  # training has started
        assert first["event"] == "progress"
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130
    done = _lines(rest)[-1]
    assert done["event"] == "done"
    assert done["interrupted"] is True
    assert 0 < done["episodes"] < 2_000_000_000
    assert load_agent_file(out).meta["episodes"] == done["episodes"]
