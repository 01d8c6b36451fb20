"""How :mod:`tttlab.usercode.grading` grades a submission: ``--name`` pairs given to the shape
they name, and a class graded in threads, whose Python sides take turns outside their
boxes (the shapes' reports are merged by :mod:`tttlab.usercode.merging`)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.usercode.test_cs50 import variant
from tttlab.errors import TttlabError
from tttlab.usercode import grading
from tttlab.usercode.grading import _renames, check_path


def test_name_pairs_go_to_the_shape_that_has_the_name() -> None:
    assert _renames(("board=tiles", "Agent=Learner"), ["course", "td-agent"]) == {
        "board": "tiles",
        "Agent": "Learner",
    }
    with pytest.raises(TttlabError, match="not a name of the course or td-agent exercise"):
        _renames(("nothing=here",), ["course", "td-agent"])


def test_a_class_graded_in_threads_takes_turns_outside_its_boxes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ttt check`` grades a class several submissions at a time, in threads. Their boxes
    run side by side, but their Python sides take turns: CPython 3.11 keeps the syntax-tree
    builder's depth for the whole interpreter, and two threads building trees at once (one
    reading a submission with ``ast.parse``, one loading a table, whose headers numpy reads
    with ``ast.literal_eval``) ended 5 of 32 runs of ``ttt check`` on two files with
    "internal error: SystemError: AST constructor recursion depth mismatch"."""
    counts = {"reading": 0, "boxes": 0}
    most = dict(counts)
    lock = threading.Lock()

    def counted(what: str, wait: float, real: Any) -> Any:
        def run(*args: Any) -> Any:
            with lock:
                counts[what] += 1
                most[what] = max(most[what], counts[what])
            time.sleep(wait)  # time for another thread to come in, if it may
            try:
                return real(*args)
            finally:
                with lock:
                    counts[what] -= 1

        return run

    monkeypatch.setattr(grading, "scan", counted("reading", 0.2, grading.scan))
    monkeypatch.setattr(grading, "run_job", counted("boxes", 0.5, grading.run_job))
    files = [variant(tmp_path, [], f"student{i}.py") for i in range(3)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        reports = list(pool.map(lambda f: check_path(f, only=("player",)), files))
    assert [r.ok for r in reports] == [True, True, True]
    assert most == {"reading": 1, "boxes": 3}
