"""The API's judge (:mod:`tttlab.api.judging`): ``evaluate`` takes names, files and seats,
and gives ``ttt eval --json``'s figures."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import tttlab
from tests.cli.helpers import ttt


def test_evaluate_names_files_and_seats(tmp_path: Path) -> None:
    perfect = tttlab.evaluate("perfect")
    assert perfect.X is not None
    assert perfect.O is not None
    assert perfect.X.worst_case == perfect.O.worst_case == 0
    assert perfect.unbeatable
    random_x = tttlab.evaluate("random", seat="X")
    assert random_x.O is None
    assert random_x.X is not None
    assert Fraction(random_x.X.win).limit_denominator(10_000) == Fraction(737, 1260)
    result = ttt("eval", "perfect", "--json")
    assert perfect.to_dict() == json.loads(result.stdout)
    html = perfect._repr_html_()
    assert "<table" in html
    assert "worst case" in html
