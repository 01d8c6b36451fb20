"""The strict JSON reader (:mod:`tttlab.strictjson`) on its own: each bound and each kind of
number it refuses, in one line; the certificates' own cases are in tests/solvers."""

from __future__ import annotations

import pytest

from tttlab.strictjson import StrictJSONError, strict_loads


def _loads(text: str, size: int = 1000, depth: int = 4, digits: int = 5) -> object:
    return strict_loads(text.encode(), size, depth, digits)


def test_plain_json_within_the_bounds_reads_as_json() -> None:
    assert _loads('{"a": [1, -2, {"b": "x"}], "c": null}') == {
        "a": [1, -2, {"b": "x"}],
        "c": None,
    }


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"a": 1, "a": 2}', "the key 'a' appears twice in one object"),
        ("[[[[[1]]]]]", "JSON nested deeper than 4 levels"),
        ('["[[[[[", 1]', None),  # brackets inside a string are not nesting
        ("123456", "a number of 6 digits (at most 5)"),
        ("-12345", None),
        ("1.5", "1.5 is not an integer (integers only)"),
        ("NaN", "NaN is not an integer (integers only)"),
        ("[1,", "not JSON: "),
        ("x" * 1001, "the file has over 1,000 bytes"),
    ],
)
def test_each_refusal_is_one_line(text: str, reason: str | None) -> None:
    if reason is None:
        _loads(text)
        return
    with pytest.raises(StrictJSONError) as refused:
        _loads(text)
    assert str(refused.value).startswith(reason)
    assert "\n" not in str(refused.value)


def test_bytes_that_are_not_utf8_are_refused_by_position() -> None:
    with pytest.raises(StrictJSONError, match=r"not UTF-8 text \(byte 1\)"):
        strict_loads(b'"\xff"', 100, 4, 5)
