"""The stubs for modules a student's code imports that are not installed
(:mod:`tttlab.usercode.boxside.stubs`): the import succeeds, and using the module fails as
that call's own error, which says what stood in, never the grader's class name."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tttlab.usercode.boxside import stubs


@pytest.fixture
def stubbed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(stubs, "STUBBED", [])
    yield tmp_path
    for name in [m for m in sys.modules if m.split(".")[0] == "ttt_no_such_lib"]:
        del sys.modules[name]


def test_a_name_of_a_stub_used_as_a_number_fails_as_the_module_that_is_missing(
    stubbed: Path,
) -> None:
    assert stubs.stub("ttt_no_such_lib", str(stubbed))
    length = sys.modules["ttt_no_such_lib"].LENGTH
    for use in (lambda: range(length), lambda: length + 1, lambda: length < 3, lambda: int(length)):
        with pytest.raises(ModuleNotFoundError, match=r"ttt_no_such_lib\.LENGTH: ttt_no_such_lib"):
            use()
    with pytest.raises(TypeError, match=r"to stub\.__format__"):  # no dunder fails so
        f"{length:d}"
    assert "_Missing" not in repr(length)


def test_the_students_own_module_is_never_stubbed(stubbed: Path) -> None:
    (stubbed / "ttt_no_such_lib.py").write_text("X = 1\n")
    assert not stubs.stub("ttt_no_such_lib", str(stubbed))
