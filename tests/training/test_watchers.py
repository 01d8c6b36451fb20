"""What a run shows while it works (``tttlab.training.watchers``): a live line on a terminal,
whole plain lines off one, and nothing cut short in a log file."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from tttlab.training import ConsoleProgress, Tick


def test_off_a_terminal_progress_is_plain_whole_lines() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=False, force_jupyter=False, width=40)
    progress = ConsoleProgress(console, plain_every=0.0)
    assert not progress.live
    point = {"episode": 5, "X": {"optimal_share": 0.5}, "O": {"optimal_share": 0.25}}
    progress.progress(Tick("td", "episodes", 100_000, 200_000, 133_802.0, point, {}))
    progress.progress(Tick("td", "episodes", 200_000, 200_000, 133_802.0))  # the end: quiet
    progress.close()
    lines = buffer.getvalue().splitlines()
    assert lines == [
        "td: 100,000 of 200,000 episodes (50%), 133,802 episodes/s | X: optimal 0.500, "
        "O: optimal 0.250"
    ]


def test_ttt_train_into_a_log_file_keeps_every_line_whole(tmp_path: Path) -> None:
    """``make demo > log`` used to cut the bar to ``td ━━━━━ 200… 0:00…``."""
    command = [sys.executable, "-m", "tttlab", "train", "td", "--episodes", "200000"]
    with open(tmp_path / "out.log", "w") as out, open(tmp_path / "err.log", "w") as err:
        subprocess.run(
            [*command, "--out", str(tmp_path / "td.npz")],
            stdout=out,
            stderr=err,
            check=True,
            env={k: v for k, v in os.environ.items() if k != "COLUMNS"},
            timeout=300,
        )
    written = (tmp_path / "out.log").read_text() + (tmp_path / "err.log").read_text()
    assert "━" not in written
    assert "…" not in written
    summary = (tmp_path / "out.log").read_text().splitlines()
    assert summary[0].startswith("Trained td for 200,000 episodes")
    assert summary[0].endswith(f"saved to {tmp_path / 'td.npz'}.")
    assert all("optimal share" in line for line in summary[1:3])


def test_a_proofs_progress_is_a_spinners_text_or_plain_lines() -> None:
    import io

    from rich.console import Console

    from tttlab.cli.eval_cmd import proof_text
    from tttlab.evaluation import ProofProgress
    from tttlab.game import Player
    from tttlab.training.watchers import StatusLine

    asking = ProofProgress(Player.O, 9, 1_234_567, 65_536, 200_000, 41.6)
    between = ProofProgress(Player.O, 10, 1_500_000, 0, 180_000, 47.2)
    assert proof_text(asking, "az.npz:64 on 5x5k4", 25) == (
        "Proving O of az.npz:64 on 5x5k4: ply 9 of 25, 1,234,567 positions, 65,536 of "
        "200,000 answered (42 s)"
    )
    assert proof_text(between, "net[x]", 25) == (
        "Proving O of net[x]: ply 10 of 25, 1,500,000 positions (47 s)"
    )

    buffer = io.StringIO()  # off a terminal: whole plain lines, markup left as it is
    plain = Console(file=buffer, force_terminal=False, force_jupyter=False, width=20)
    line = StatusLine(None, plain, plain_every=0.0)
    line.show(proof_text(asking, "az.npz:64 on 5x5k4", 25))
    line.show("[bold]net[x][/bold]")
    assert buffer.getvalue().splitlines() == [
        proof_text(asking, "az.npz:64 on 5x5k4", 25),
        "[bold]net[x][/bold]",
    ]
    quiet = io.StringIO()  # at most one line every plain_every seconds
    line = StatusLine(None, Console(file=quiet, force_terminal=False), plain_every=3600.0)
    line.show("not yet")
    assert quiet.getvalue() == ""

    class Spinner:
        def __init__(self) -> None:
            self.texts: list[str] = []

        def update(self, text: str) -> None:
            self.texts.append(text)

    spinner = Spinner()  # on a terminal: the spinner's text, escaped for rich
    terminal = Console(file=io.StringIO(), force_terminal=True)
    StatusLine(spinner, terminal).show("net[x]")  # type: ignore[arg-type]
    assert spinner.texts == ["net\\[x]…"]
