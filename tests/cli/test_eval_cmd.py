"""``ttt eval`` through the command line: exact, proved and sampled evaluations, and what
it says while it works."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.helpers import refusal, ttt


def test_eval_builtins_json() -> None:
    data = json.loads(ttt("eval", "perfect", "--json").stdout)
    assert set(data) == {"X", "O"}
    assert data["X"]["worst_case"] == 0
    assert data["O"]["vs_random"]["loss"] == 0
    rand = json.loads(ttt("eval", "random", "--json").stdout)
    assert rand["X"]["vs_random"]["win"] == pytest.approx(737 / 1260)


def test_eval_prove_shows_a_losing_line_that_ttt_play_replays() -> None:
    """minimax:1 as O is beaten; the proof draws the line and gives the `ttt play` command
    that replays it (the line's moves are checked there to be ones minimax:1 may play)."""
    shown = ttt("eval", "minimax:1", "--prove", "--as", "O")
    assert shown.returncode == 0, shown.stderr
    assert "can be beaten in 5 plies" in shown.stdout
    hint = next(line for line in shown.stdout.splitlines() if "Replay it:" in line)
    replay = ttt(*hint.split("Replay it: ttt ", 1)[1].split(), input="n\n")
    assert replay.returncode == 0, replay.stderr
    assert "Result: you win (X)" in replay.stdout
    refused = ttt("play", "--opponent", "perfect", "--moves", "1,2", input="q\n")
    assert refused.returncode == 2
    assert refused.stderr.strip() == "ttt: error: --moves: perfect would not play 2 in X../.../..."
    data = json.loads(ttt("eval", "minimax:1", "--prove", "--json").stdout)
    assert data["X"]["proved"] is True
    assert data["X"]["worst_case"] == 0
    assert data["O"]["losing_line"] == [4, 0, 3, 2, 5]
    assert data["O"]["losing_position"] == "O.O/XXX/..."
    assert data["O"]["vs_random"]["loss"] == pytest.approx(16 / 945)


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["eval", "missing.npz"], "not a built-in"),
        (["eval", "perfect", "--prove", "--sample", "5"], "choose one"),
        (["eval", "mcts:10", "--prove"], "mcts(10) is not deterministic"),
        (["eval", "perfect", "--seconds", "5"], "applies with --prove"),
        (["eval", "perfect", "--prove", "--seconds", "0"], "'--seconds'"),
        (["eval", "perfect", "--prove", "--seconds", "0.000001"], "ran out of time"),
    ],
)
def test_bad_arguments(tmp_path: Path, args: list[str], fragment: str) -> None:
    assert fragment in refusal(*args, cwd=str(tmp_path))


def test_eval_prove_and_sample_say_where_they_are_in_a_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Off a terminal, a line every 10 s; with no wait here, a line at every step, so the
    command's wiring shows: the proof's last line is its last ply, the sample's its count."""
    import functools

    from click.testing import CliRunner

    from tttlab.cli import eval_cmd
    from tttlab.training.watchers import StatusLine

    monkeypatch.setattr(eval_cmd, "StatusLine", functools.partial(StatusLine, plain_every=0.0))
    proved = CliRunner().invoke(eval_cmd.eval_command, ["minimax:1", "--prove", "--as", "O"])
    assert proved.exit_code == 0, proved.output
    lines = [x for x in proved.stderr.splitlines() if x.startswith("Proving O of minimax")]
    walked = re.search(r"\(([\d,]+) positions in", proved.stdout)
    assert walked is not None
    assert re.fullmatch(
        rf"Proving O of minimax\(depth=1\) on 3x3k3: ply 9 of 9, {walked[1]} positions \(\d+ s\)",
        lines[-1],
    )
    assert any(" answered" in x for x in lines[:-1])
    sampled = CliRunner().invoke(
        eval_cmd.eval_command, ["perfect", "--sample", "20", "--as", "X", "--board", "3x4"]
    )
    assert sampled.exit_code == 0, sampled.output
    last = sampled.stderr.splitlines()[-1]
    assert re.fullmatch(r"Judging X's sampled decisions of perfect: \d\d of 20 \(\d+ s\)", last)


def test_an_exact_evaluation_says_how_many_positions_are_answered_in_a_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The table's total is known, so each seat's lines count up to it, then say it judges."""
    import functools

    from click.testing import CliRunner

    from tttlab.cli import eval_cmd
    from tttlab.evaluation import TableProgress
    from tttlab.game import Player
    from tttlab.training.watchers import StatusLine

    assert eval_cmd.table_text(TableProgress(Player.X, 65_536, 4_656_643, 9.6), "n.npz") == (
        "Evaluating X of n.npz: 65,536 of 4,656,643 positions answered (10 s)"
    )
    assert eval_cmd.table_text(TableProgress(Player.O, 7, 7, 1.0), "p") == (
        "Evaluating O of p: all 7 positions answered; judging (1 s)"
    )
    monkeypatch.setattr(eval_cmd, "StatusLine", functools.partial(StatusLine, plain_every=0.0))
    result = CliRunner().invoke(eval_cmd.eval_command, ["minimax:1", "--json"])
    assert result.exit_code == 0, result.output
    lines = [x for x in result.stderr.splitlines() if x.startswith("Evaluating")]
    counts = [
        re.fullmatch(r"Evaluating (X|O) of minimax\(depth=1\) on 3x3k3: (.*) \(\d+ s\)", x)
        for x in lines
    ]
    assert all(counts), lines
    for seat in "XO":  # 1,024 positions a line (minimax is asked one by one), then all
        told = [m[2] for m in counts if m and m[1] == seat]
        total = int(re.findall(r"of ([\d,]+) positions", told[0])[0].replace(",", ""))
        assert told[-1] == f"all {total:,} positions answered; judging"
        assert told[:-1] == [
            f"{n:,} of {total:,} positions answered" for n in range(1024, total, 1024)
        ]
    assert json.loads(result.stdout)["X"]["worst_case"] == 0
