""":mod:`tttlab.usercode.names` reads a submission's files without running them: a file the
parser gives up on is still read for its definitions, whatever way the parser gives up."""

from __future__ import annotations

from pathlib import Path

import pytest

from tttlab.usercode.names import detect, scan

HEAD = """\
def minimax(board):
    return None


class Board:
    def play(self):
        pass


"""


@pytest.mark.parametrize(
    "tail",
    [
        pytest.param("x = " + "(" * 200_000 + ")" * 200_000, id="parentheses"),
        pytest.param("x = " + "[" * 100_000 + "]" * 100_000, id="brackets"),
        pytest.param("x = " + "-" * 200_000 + "1", id="unary-memory-error"),
        pytest.param("x = 1" + "+1" * 200_000, id="binary-recursion-error"),
        pytest.param("x = a" + ".b" * 200_000, id="attributes-recursion-error"),
        pytest.param("def broken(:", id="syntax-error"),
        pytest.param("x = '\0'", id="null-byte"),
    ],
)
def test_a_file_the_parser_gives_up_on_is_read_for_its_definitions(
    tmp_path: Path, tail: str
) -> None:
    """Nested too deep, Python's parser ends in a MemoryError or a RecursionError rather
    than a SyntaxError (3.11: ``-`` 200,000 times, ``+1`` 200,000 times); read like a
    SyntaxError, the file's definitions are still found."""
    path = tmp_path / "deep.py"
    path.write_text(HEAD + tail + "\n")
    (module,) = scan(tmp_path, [path])
    assert module.name == "deep"
    assert "minimax" in module.functions
    assert "play" in module.classes["Board"]
    assert detect([module]) == "board"
