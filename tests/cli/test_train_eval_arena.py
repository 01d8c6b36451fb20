"""``ttt train``, ``ttt eval``, ``ttt arena`` and agent files through the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.helpers import ttt
from tttlab.game import Geometry, Position
from tttlab.solvers import solve_table


@pytest.mark.parametrize("algorithm", ["td", "q", "sarsa"])
def test_course_learners_become_unbeatable_in_200k_episodes(tmp_path: Path, algorithm: str) -> None:
    out = tmp_path / f"{algorithm}.npz"
    result = ttt(
        "train", algorithm, "--episodes", "200000", "--seed", "0", "--out", str(out), "--json"
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["episodes"] == 200_000
    evaluation = json.loads(ttt("eval", str(out), "--json").stdout)
    assert evaluation == summary["evaluation"]
    for seat in ("X", "O"):
        assert evaluation[seat]["worst_case"] == 0
        assert evaluation[seat]["optimal_share"] == 1.0


def test_same_seed_gives_identical_files(tmp_path: Path) -> None:
    paths = [tmp_path / name for name in ("a.npz", "b.npz", "c.npz")]
    for path, seed in zip(paths, ("3", "3", "4"), strict=True):
        assert (
            ttt(
                "train", "sarsa", "--episodes", "5000", "--seed", seed, "--out", str(path)
            ).returncode
            == 0
        )
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


def test_curve_log_and_trained_agent_everywhere(tmp_path: Path) -> None:
    out, curve, log = tmp_path / "q.npz", tmp_path / "curve.png", tmp_path / "log.jsonl"
    result = ttt(
        "train",
        "q",
        "--episodes",
        "20000",
        "--seed",
        "1",
        "--out",
        str(out),
        "--curve",
        str(curve),
        "--log",
        str(log),
        "--eval-every",
        "5000",
    )
    assert result.returncode == 0, result.stderr
    assert curve.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["episode"] for r in records] == [0, 5000, 10000, 15000, 20000]
    assert {"worst_case", "vs_random", "optimal_share"} <= set(records[-1]["X"])

    policy = json.loads(ttt("policy", str(out), "--json").stdout)
    assert len(policy["moves"]) == 4520
    played = ttt("play", "--opponent", str(out), "--show-values", "--as", "O", input="q\n")
    assert played.returncode == 0
    assert "q.npz's values" in played.stdout
    arena = ttt("arena", "perfect", str(out), "random", "--games", "5", "--json")
    data = json.loads(arena.stdout)
    assert len(data["pairings"]) == 6
    assert data["standings"]["perfect"]["loss"] == 0


def test_training_one_seat_against_a_fixed_opponent(tmp_path: Path) -> None:
    out = tmp_path / "x.npz"
    against = ["--opponent", "perfect", "--as", "X"]
    result = ttt("train", "q", "--episodes", "50000", *against, "--out", str(out), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert set(summary["evaluation"]) == {"X"}
    bad = ttt("eval", str(out), "--as", "O")
    assert bad.returncode == 2
    assert "trained to play X only" in bad.stderr
    policy = json.loads(ttt("policy", str(out), "--json").stdout)
    solution = solve_table(Geometry())
    # the policy lists the seat it plays; every position is one where X moves
    assert all(Position.from_string(p).to_move.name == "X" for p in policy["moves"])
    assert len(policy["moves"]) > 0
    assert solution.value[0] == 0


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
        (["train", "q", "--episodes", "0", "--out", "x.npz"], "'--episodes'"),
        (["train", "q", "--episodes", "-5", "--out", "x.npz"], "'--episodes'"),
        (["train", "q", "--episodes", "ten", "--out", "x.npz"], "'--episodes'"),
        (["train", "q", "--episodes", "10", "--alpha", "1.5", "--out", "x.npz"], "'--alpha'"),
        (["train", "q", "--episodes", "10", "--epsilon", "-0.1", "--out", "x.npz"], "'--epsilon'"),
        (["train", "q", "--episodes", "10", "--out", "/nonexistent/dir/x.npz"], "does not exist"),
        (
            ["train", "q", "--episodes", "10", "--board", "6x6", "--k", "4", "--out", "x.npz"],
            "cannot train",
        ),
        (["train", "nope", "--episodes", "10", "--out", "x.npz"], "'nope' is not one of"),
        (["train", "q", "--episodes", "10", "--as", "O", "--out", "x.npz"], "--as needs"),
        (
            ["train", "q", "--episodes", "10", "--alpha-schedule", "linear", "--out", "x.npz"],
            "--alpha-end",
        ),
        (
            [
                "train",
                "q",
                "--episodes",
                "10",
                "--alpha-schedule",
                "linear",
                "--alpha-end",
                "0.1",
                "--out",
                "x.npz",
            ],
            None,
        ),
        (["eval", "missing.npz"], "not a built-in"),
        (["eval", "perfect", "--prove", "--sample", "5"], "choose one"),
        (["eval", "mcts:10", "--prove"], "mcts(10) is not deterministic"),
        (["eval", "perfect", "--seconds", "5"], "applies with --prove"),
        (["eval", "perfect", "--prove", "--seconds", "0"], "'--seconds'"),
        (["eval", "perfect", "--prove", "--seconds", "0.000001"], "ran out of time"),
        (["arena", "perfect"], "at least two"),
        (["arena", "perfect", "random", "--games", "0"], "'--games'"),
    ],
)
def test_bad_arguments(tmp_path: Path, args: list[str], fragment: str | None) -> None:
    import os

    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = ttt(*args)
    finally:
        os.chdir(here)
    if fragment is None:  # a complete, valid request
        assert result.returncode == 0, result.stderr
        return
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert fragment in lines[0]


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
