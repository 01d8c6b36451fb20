"""A strict JSON reader for files that other tools write and tttlab must not trust
(certificates, :mod:`tttlab.verifier`): bounded in size, depth and digits, no duplicate keys,
integers only, and every refusal one line (:class:`StrictJSONError`), whatever the bytes."""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

from tttlab.errors import TttlabError

__all__ = ["StrictJSONError", "strict_loads"]


class StrictJSONError(TttlabError):
    """Bytes that are not strict JSON within the bounds: the first reason, in one line."""


def _refuse(reason: str) -> NoReturn:
    raise StrictJSONError(reason)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            _refuse(f"the key {key[:80]!r} appears twice in one object")
        found[key] = value
    return found


def _not_an_integer(text: str) -> NoReturn:
    _refuse(f"{text[:40]} is not an integer (integers only)")


#: A JSON string, or one cut short by the end of the file (it always matches: linear time).
_STRING = re.compile(r'"(?:[^"\\]+|\\.|\\\Z)*(?:"|\Z)', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_PAIR = re.compile(r"\(\)")


def _too_deep(text: str, most_depth: int) -> bool:
    """Whether the brackets outside strings nest deeper than ``most_depth``, in
    linear time: each round removes the innermost pairs, so a balanced file of depth d is
    gone after d rounds (unbalanced ones are the parser's to refuse)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    shape = brackets.translate(str.maketrans("[{]}", "(())"))
    for _ in range(most_depth):
        shape = _PAIR.sub("", shape)
    return "(" in shape and ")" in shape[shape.index("(") :]


def strict_loads(raw: bytes, most_bytes: int, most_depth: int, most_digits: int) -> Any:
    """The JSON in ``raw``: at most ``most_bytes`` bytes of UTF-8, nested at most
    ``most_depth`` deep, integers of at most ``most_digits`` digits and no other numbers,
    each key once per object; anything else raises :class:`StrictJSONError`."""
    if len(raw) > most_bytes:
        _refuse(f"the file has over {most_bytes:,} bytes")

    def integer(text: str) -> int:
        if len(text.lstrip("-")) > most_digits:
            _refuse(f"a number of {len(text.lstrip('-')):,} digits (at most {most_digits})")
        return int(text)

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        _refuse(f"not UTF-8 text (byte {error.start})")
    if _too_deep(text, most_depth):
        _refuse(f"JSON nested deeper than {most_depth} levels")
    try:
        return json.loads(
            text,
            object_pairs_hook=_object,
            parse_int=integer,
            parse_float=_not_an_integer,
            parse_constant=_not_an_integer,
        )
    except json.JSONDecodeError as error:
        _refuse(f"not JSON: {error}")
    except RecursionError:  # unbalanced brackets that _too_deep leaves to the parser
        _refuse(f"JSON nested deeper than {most_depth} levels")
