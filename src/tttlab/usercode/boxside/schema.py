"""The protocol of ``ttt check``, declared once: the caller writes it and the grader reads it
(:class:`tttlab.usercode.protocol.Reader`); the worker's answers to the caller use the same
outcomes. Standard library only.

**The results channel** (the caller's stdout; one JSON value a line, every line the
caller's own):

- ``{"started": true}`` once the worker is ready (before it, none of the student's code
  has run: a box that ends there is the grader's failure);
- ``{"import": OUTCOME, "missing": [names], "skipped": [lines], "stubbed": [modules],
  "printed": n, "first_print": text, "notes": [texts], "problem": text}`` (``notes``: how
  the exercise's side took the student's code, where not the text's way; ``problem``: why
  no check can run, an agent that no way builds);
- ``{"constants": text}`` when the exercise's constants cannot be compared;
- for each check, ``{"phase": name}``, an OUTCOME per call (a timed check appends the
  seconds the caller measured), then ``{"end": name, "printed": n, "first_print": text}``;
- ``{"stopped": text}`` when the worker could not be started again after a call it did not
  survive (the later checks are not run);
- ``{"broken": text}`` when the grader itself failed (the worker did not start, or the
  caller failed), at any point: never the student's doing (what the worker says after it
  is ready is the student's, and never reads as this);
- ``{"done": true}``, last.

**An OUTCOME** is an array: ``["v", value]`` a value came back (already in tttlab's terms;
``"changed"`` may follow when the call wrote into its input), ``["e", text]`` it raised,
``["x", text]`` it called ``sys.exit``, ``["i"]`` it called ``input()``; and, written by
the caller alone, ``["t"]`` it ran past the per-call limit, ``["k", how]`` the worker ended
during the call, ``["b", why]`` its answer was not one the worker writes (something in the
submission wrote on the worker's pipe).

**The worker's pipe**: the caller sends ``{"n": nonce, "import": true}`` or ``{"n": nonce,
"f": check, "c": case}``; the worker first says ``{"ready": true}`` (before any of the
student's code runs), then answers each question with ``{"n": nonce, "o": OUTCOME,
"p": printed, "fp": first_print}`` (for the import: ``"o"`` is the import's outcome, with
``"missing"``, ``"skipped"``, ``"stubbed"``, ``"constants"``, ``"notes"`` and ``"problem"``
beside it).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "ANSWERED",
    "CALLER_ONLY",
    "IMPORT_KEYS",
    "MODULE",
    "NOTES",
    "NOTE_CHARS",
    "OUTCOMES",
    "STUBS",
    "cut",
    "describe",
    "outcome_problem",
    "said",
    "visible",
]

#: Each kind of outcome, and whether it carries a text.
OUTCOMES = {"v": False, "e": True, "x": True, "i": False, "t": False, "k": True, "b": True}
#: The kinds the worker may answer with (the rest are the caller's).
ANSWERED = ("v", "e", "x", "i")
#: The kinds only the caller writes: the call cost its worker (a new one is started).
CALLER_ONLY = ("t", "k", "b")
#: The keys of the import's mark on the results channel.
IMPORT_KEYS = (
    "import",
    "missing",
    "skipped",
    "stubbed",
    "printed",
    "first_print",
    "notes",
    "problem",
    "making",
)
#: The most notes a shape gives on how it took the student's code, and the characters of
#: each note and of the problem that no check can run.
NOTES, NOTE_CHARS = 8, 400
#: A module's top-level name, as the worker reports one it stood a stub in for.
MODULE = re.compile(r"[A-Za-z_][A-Za-z_0-9]{0,99}")
#: The most modules stood in for by stubs (one more fails as not installed).
STUBS = 20
#: The longest text an outcome carries.
TEXT_CHARS = 200


#: What marks a text cut short (after a space, where it was cut between words).
CUT = "…"


def cut(text: str, chars: int) -> str:
    """``text`` in at most ``chars`` characters: where it is longer, cut at the last space
    that leaves room for `` …``, which marks the cut (inside a word, marked ``…``, only
    where that word takes more than the second half)."""
    if len(text) <= chars:
        return text
    if chars < 2:
        return text[:chars]
    room = chars - 2
    head = text[: room + 1]
    if not head[room].isspace():
        space = max(head.rfind(" "), head.rfind("\t"), head.rfind("\n"))
        if space < room // 2:  # one long word: cut inside it
            return text[: chars - 1] + CUT
        head = head[:space]
    return head.rstrip() + " " + CUT


def said(error: BaseException, chars: int = 80) -> str:
    """An exception in one line: ``ValueError: its message``, the message on one line and
    cut at a word to ``chars``; the type alone where there is no message to read."""
    try:
        message = cut(" ".join(str(error).split()), chars)
    except BaseException:  # its __str__ is the student's code
        message = ""
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def visible(text: str) -> str:
    """``text`` with what a terminal or a parser would act on (control characters, lone
    surrogates) written as escapes: what the student's code says is shown, never obeyed."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else ascii(c)[1:-1] for c in text)


def outcome_problem(item: Any, kinds: tuple[str, ...] = tuple(OUTCOMES)) -> str | None:
    """What is wrong with ``item`` as an OUTCOME of one of ``kinds`` (without a time), or
    None when it is one."""
    if type(item) is not list or not item or item[0] not in kinds:
        return "an outcome of no known kind"
    kind, rest = item[0], item[1:]
    if kind == "v":
        if not rest or rest[1:] not in ([], ["changed"]):
            return "a value in the wrong form"
    elif OUTCOMES[kind]:
        if len(rest) != 1 or type(rest[0]) is not str or len(rest[0]) > TEXT_CHARS:
            return "an outcome without its text"
    elif rest:
        return "an outcome with more than it carries"
    return None


def describe(outcome: list[Any], import_seconds: float | None = None) -> str | None:
    """What went wrong with a call (or, given ``import_seconds``, with the import) that
    gave no value; None when it gave one."""
    kind = outcome[0]
    importing = import_seconds is not None
    if kind == "e":
        return f"does not import: {outcome[1]}" if importing else f"raised {outcome[1]}"
    if kind == "x":
        code = "" if outcome[1] == "None" else outcome[1]
        return "calls sys.exit() when imported" if importing else f"called sys.exit({code})"
    if kind == "i":
        return (
            'calls input() when imported (keep the game under `if __name__ == "__main__":`)'
            if importing
            else "called input()"
        )
    if kind == "t":
        if importing:
            return f"takes more than {import_seconds:g} s to import"
        return "did not return within the per-call time limit"
    if kind == "k":
        when = "while it was imported" if importing else "during the call"
        return f"the process ended {when} ({outcome[1]})"
    if kind == "b":
        return f"gave no answer the grader can read ({outcome[1]})"
    return None
