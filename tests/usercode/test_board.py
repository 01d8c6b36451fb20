"""``ttt check`` on the Board class of the Q-learning text, seed 003
(:mod:`tttlab.usercode.exercises.board`): checked from a file whose main script trains,
without running its training; a wrong winner on a tie is named in the counterexample."""

from __future__ import annotations

from pathlib import Path

from tttlab.usercode.grading import check_path

CORPUS = Path(__file__).parent / "corpus"


def test_the_board_class_is_checked_without_running_its_training(tmp_path: Path) -> None:
    source = (CORPUS / "board" / "qlearning.py").read_text()
    report = check_path(CORPUS / "board" / "qlearning.py", time_limit=30)
    assert report.exercise == "board"
    assert report.ok, report.as_json()
    assert report.checks["play"].checked == 16167
    tie = source.replace('            self.winner = "0"', "            pass")
    (tmp_path / "tie.py").write_text(tie)
    report = check_path(tmp_path / "tie.py", only=("play",))
    example = report.checks["play"].example
    assert example is not None
    assert "winner '0'" in example.expected
    assert "winner None" in example.got
