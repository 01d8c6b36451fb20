"""The ways a student's TD agent was made that are not the text's, in words (standard
library only): :mod:`.td_making` says each as a short code, and the agent's ``prepare``
hands these lines to the report as its notes, so that no adaptation passes unsaid (the
constructor's parameters matched by name, a setter or an attribute of the student's own,
its table's container and precision, its Environment's own names, ``Player`` for
``Agent``)."""

from __future__ import annotations

from collections.abc import Iterable

from .td_making import GIVEN

__all__ = ["PRECISIONS", "worded"]

#: The roles a note calls by more than their name (eps, alpha and V are said as they are);
#: the roles themselves are the ones an agent is given (:data:`.td_making.GIVEN`).
CALLED = {"sym": "the symbol", "discount": "the discount (1: the course's update has none)"}
#: The relative tolerance the grader compares a table's values at, by the precision it is
#: kept at (said in the note; the grader's own copy is :mod:`tttlab.usercode.exercises`'s).
PRECISIONS = {"float32": "1e-06", "float16": "0.008"}


def _pairs(text: str) -> str:
    """``epsilon=eps,learning_rate=alpha`` → ``epsilon=eps, learning_rate=alpha``."""
    return ", ".join(p for p in text.split(",") if p)


def _making(way: str, agent: str) -> str | None:
    """A way the agent was made, in words (None: not a way of making it)."""
    kind, _, rest = way.partition(":")
    if kind == "built":
        by, _, params = rest.partition(":")
        call = f"{agent}({_pairs(params)})"
        if by == "position":
            return f"built as {call}, by position in the course's order (eps, alpha)"
        if by == "default":
            return f"built as {agent}() with no arguments"
        return f"built as {call}, its parameters matched by name"
    if kind in GIVEN:
        how, _, names = rest.partition(":")
        shown = " and ".join(names.split(","))
        role = CALLED.get(kind, kind)
        if how == "setter":
            return f"{role} given through {shown}()"
        return f"{role} set as the attribute {shown}"
    if kind == "seat":
        return (
            f"the seat given to its constructor as {rest} (X's, O's): it refused the "
            "environment's own symbol"
        )
    if kind == "history":
        return f"its history read as agent.{rest}"
    return None


def worded(ways: Iterable[str]) -> list[str]:
    """The notes for ``ways`` (each said once, in the order first said)."""
    ways = list(dict.fromkeys(ways))
    named = next((w.partition(":")[2] for w in ways if w.startswith("class:")), "Agent")
    lines = []
    making = [t for t in (_making(w, named) for w in ways) if t]
    if making or named != "Agent":
        who = [f"your class {named}, graded as the course's Agent"] if named != "Agent" else []
        lines.append("the agent: " + "; ".join(who + making))
    tables = [w.partition(":")[2] for w in ways if w.startswith("table:")]
    if tables:
        lines.append(f"V given as a {' and a '.join(tables)}, the container your agent keeps it in")
    for precision in dict.fromkeys(w.partition(":")[2] for w in ways if w.startswith("float:")):
        if precision in PRECISIONS:
            lines.append(
                f"V kept as {precision}: its values compared at {precision} precision "
                f"(relative tolerance {PRECISIONS[precision]})"
            )
    for way in ways:
        kind, _, rest = way.partition(":")
        if kind == "world":
            call, _, board = rest.rpartition(":")
            lines.append(
                f"played on your own Environment, built as {call}: tttlab sets and reads "
                f"its board as env.{board}, and judges by its own rules"
            )
        elif kind == "worldwhy":
            lines.append(f"played on tttlab's stand-in Environment, not yours: {rest}")
    extras = sorted({n for w in ways if w.startswith("env:") for n in w[4:].split(",") if n})
    if extras:
        line = (
            "played on tttlab's stand-in Environment with your Environment's own "
            f"{', '.join(extras)} (the board, the states and the rewards stay tttlab's)"
        )
        for way in ways:
            kind, _, rest = way.partition(":")
            if kind == "envinit":
                line += f"; your Environment's __init__ run as {rest}"
            elif kind == "envwhy":
                line += f"; your Environment's __init__ not run (it {rest}): its methods only"
        lines.append(line)
    return lines
