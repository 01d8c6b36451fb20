"""A whole ``ttt play`` game through the CLI, with bad input mixed in."""

from __future__ import annotations

import itertools

import pytest

from tests.cli.helpers import ttt
from tttlab.cli import main
from tttlab.cli.play_cmd import MoveInputError, parse_human_move
from tttlab.game import Geometry, Position


def test_parse_human_move() -> None:
    p = Position.from_string("X.O/.X./..O")
    assert parse_human_move("2", p) == 1
    assert parse_human_move(" 3,1 ", p) == 6
    assert parse_human_move("2 1", p) == 3
    for text, fragment in [
        ("0", "run from 1 to 9"),
        ("10", "run from 1 to 9"),
        ("-3", "run from 1 to 9"),
        ("4,1", "row must be 1-3"),
        ("1", "taken by X"),
        ("3,3", "taken by O"),
        ("abc", "type a cell number"),
        ("", "type a cell number"),
        ("x" * 500, "type a cell number"),
    ]:
        with pytest.raises(MoveInputError, match=fragment):
            parse_human_move(text, p)


def test_parse_on_wide_board() -> None:
    p = Position.initial(Geometry(3, 4, 3))
    assert parse_human_move("12", p) == 11
    assert parse_human_move("2,4", p) == 7


def test_whole_game_against_perfect_with_bad_input() -> None:
    # As O against perfect X; garbage, out-of-range and occupied cells are refused
    # and re-prompted. Every cell number is tried in turn until the game ends.
    moves = ["hello", "0", "99", "2,9"] + [str(c) for c in range(1, 10)] * 2 + ["n"]
    result = ttt("play", "--as", "O", "--seed", "3", input="\n".join(moves) + "\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Traceback" not in out + result.stderr
    assert "type a cell number 1-9 or row,col" in out
    assert "cell numbers run from 1 to 9, got 0" in out
    assert "cell numbers run from 1 to 9, got 99" in out
    assert "row must be 1-3 and column 1-3" in out
    assert "is taken by" in out
    assert "Result:" in out
    assert "Result: you win" not in out  # perfect never loses
    assert "Play again?" in out
    assert out.rstrip().endswith("Bye.")


def test_quit_and_end_of_input() -> None:
    quit_run = ttt("play", "--opponent", "random", input="q\n")
    assert quit_run.returncode == 0
    assert "Bye." in quit_run.stdout
    eof_run = ttt("play", "--opponent", "random", "--as", "X", input="5\n")
    assert eof_run.returncode == 0
    assert "Traceback" not in eof_run.stderr


def test_play_again_starts_a_new_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In-process, with an input() that answers each prompt by what it asks."""
    again = iter(["y", "n"])
    cells = itertools.cycle(str(c) for c in range(1, 10))

    def answer(prompt: str = "") -> str:
        print(prompt, end="")
        return next(again) if prompt.startswith("Play again") else next(cells)

    monkeypatch.setattr("builtins.input", answer)
    assert main(["play", "--opponent", "random", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("Result:") == 2
    assert out.count("Play again?") == 2


def test_show_values_prints_a_board_of_values() -> None:
    result = ttt("play", "--as", "O", "--show-values", "--seed", "0", input="q\n")
    assert result.returncode == 0
    assert "perfect's values" in result.stdout
    assert "+0.00" in result.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--as", "Z"], "'--as'"),
        (["--opponent", "nobody"], "unknown agent 'nobody'"),
        (["--board", "0x3"], "'--board'"),
        (["--board", "3x3", "--k", "7"], "'--k'"),
        (["--depth", "0"], "'--depth'"),
        (["--seed", "-1"], "'--seed'"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args: list[str], fragment: str) -> None:
    result = ttt("play", *args, input="q\n")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert fragment in lines[0]
    assert "Traceback" not in result.stderr
