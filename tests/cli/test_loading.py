"""Agent arguments read by every command (``tttlab.cli.loading``): a file that is no agent is
one line and exit 2, whichever command reads it."""

from __future__ import annotations

from pathlib import Path

from tests.cli.helpers import ttt


def test_bad_agent_files_exit_2(tmp_path: Path) -> None:
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"this is not an agent")
    for command in (
        ["eval", str(junk)],
        ["policy", str(junk)],
        ["play", "--opponent", str(junk)],
        ["arena", "perfect", str(junk)],
    ):
        result = ttt(*command, input="q\n")
        assert result.returncode == 2
        assert "not a tttlab agent file" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
