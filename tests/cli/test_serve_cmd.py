"""``ttt serve`` (:mod:`tttlab.cli.serve_cmd`): where it keeps agents by default (never the
package's folder), what its help says of binding every address, and a training job refused
with several workers (the server itself: tests/web/)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.helpers import ttt
from tttlab.cli import main
from tttlab.cli.serve_cmd import default_agents_dir


def test_default_agents_folder_is_named_and_not_the_package(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_agents_dir() == tmp_path / "tttlab" / "agents"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_agents_dir() == Path.home() / ".local" / "share" / "tttlab" / "agents"
    assert "site-packages" not in str(default_agents_dir())
    assert os.sep + "src" + os.sep + "tttlab" not in str(default_agents_dir())


def test_serve_help_says_what_binding_everywhere_exposes() -> None:
    text = ttt("serve", "--help").stdout
    assert "127.0.0.1" in text
    assert "0.0.0.0" in text
    assert "no login" in " ".join(text.split())


def test_jobs_need_one_worker_and_the_refusal_is_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--jobs", "2", "--workers", "2"]) == 2  # before anything is served
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "ttt: error: --jobs needs --workers 1: a job lives in the process that started it"
    ]
