"""Calls bound to the student's own signatures before any board is graded (standard library
only).

The course calls ``env.game_over(force_recalculate=True)`` and ``initialV_x(env, triples)``;
students name the flag ``force_check``, drop it (a ``gameOver()`` that always recomputes), or
write one helper for both seats (``initial_value(env, sym, triples)``). Each call is bound
here to the signature the student wrote: the course's arguments passed by meaning, each way
that is not the text's said in a note, and a call that cannot be bound raised as one
:class:`Unbound` line that names the signature seen and the ``--name`` to paste, never left
to fail on every board.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from .building import _plain, role_of

__all__ = ["FLAG", "Bound", "Unbound", "flag_call", "seat_helper", "signature_of"]

#: The course's name for game_over's flag.
FLAG = "force_recalculate"
#: Words that say a parameter is that flag.
_FLAG_WORDS = ("force", "recalc", "recompute", "refresh", "recheck")


class Unbound(Exception):
    """A call that the student's signature cannot take, in one line."""


class Bound:
    """A call bound to a signature: ``args`` and ``kwargs`` to pass (the ``None`` in
    ``args`` stands for a value given at call time), ``how`` what a note says ("" for the
    text's own way)."""

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any], how: str) -> None:
        self.args, self.kwargs, self.how = args, kwargs, how


def signature_of(function: Any, name: str | None = None) -> str:
    """``game_over(self, force_check=False)``: the signature as the student wrote it."""
    shown = name or getattr(function, "__name__", "?")
    try:
        target = getattr(function, "__func__", function)
        return f"{shown}{inspect.signature(target)}"
    except (TypeError, ValueError):
        return f"{shown}(...)"


def _flag_like(name: str) -> bool:
    plain = _plain(name)
    return any(word in plain for word in _FLAG_WORDS)


def flag_call(method: Any, theirs: str | None = None, shown: str = "game_over") -> Bound:
    """How to call ``method`` (a bound method) with the course's ``force_recalculate=True``:
    by that name; by the student's name for it (``theirs``, from ``--name``); by the one
    parameter whose name says it forces a recount (``force_check``, ``recalculate``); with
    no argument where the method takes none (it always recounts: the boards are fresh).
    Raises :class:`Unbound` where a required parameter is none of these."""
    try:
        parameters = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):  # nothing to read: called as the course calls it
        return Bound((), {theirs or FLAG: True}, "")
    text = signature_of(method, shown)
    named = {p.name: p for p in parameters}
    wanted = theirs or FLAG
    plain = [p for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    flags = [p for p in plain if _flag_like(p.name)]
    chosen = named.get(wanted) or (flags[0] if len(flags) == 1 and theirs is None else None)
    required = [p for p in plain if p.default is p.empty and p is not chosen]
    if theirs is not None and chosen is None:
        raise Unbound(f"{text} has no parameter {theirs} (--name {FLAG}=YOURS names it)")
    if chosen is not None and not required:
        return _by(chosen, parameters, "" if chosen.name == FLAG else f"flag:{chosen.name}")
    if any(p.kind == p.VAR_KEYWORD for p in parameters) and not required:
        return Bound((), {FLAG: True}, "")
    if not required:
        return Bound((), {}, f"noflag:{text}")
    missing = ", ".join(p.name for p in required)
    raise Unbound(
        f"{text} cannot be called as {shown}({FLAG}=True): it needs {missing}; "
        f"where {required[0].name} is the flag, --name {FLAG}={required[0].name}"
    )


def _by(parameter: inspect.Parameter, parameters: list[inspect.Parameter], how: str) -> Bound:
    """``True`` passed to ``parameter``: by keyword, or by position where it takes none."""
    if parameter.kind == parameter.POSITIONAL_ONLY:
        before = parameters[: parameters.index(parameter)]
        if any(p.default is p.empty for p in before):
            raise Unbound(f"the flag {parameter.name} follows required positional parameters")
        return Bound((*(p.default for p in before), True), {}, how)
    return Bound((), {parameter.name: True}, how)


class Helper:
    """A helper that serves both seats: ``function`` and the parameter each of its three
    roles (``env``, ``triples``, ``sym``) goes to, by name."""

    def __init__(self, function: Any, name: str, params: dict[str, str]) -> None:
        self.function, self.name, self.params = function, name, params

    def call(self, env: Any, triples: Any, sym: Any) -> Any:
        values = {"env": env, "triples": triples, "sym": sym}
        return self.function(**{p: values[r] for p, r in self.params.items()})

    def text(self, seat: str) -> str:
        shown = {"env": "env", "triples": "state_winner_triples", "sym": f"env.{seat}"}
        return f"{self.name}({', '.join(f'{p}={shown[r]}' for p, r in self.params.items())})"


def _initial_words(name: str) -> bool:
    """Whether a function's name says it makes the initial values: ``initial_value``,
    ``initialize_V``, ``init_values``, ``initialV``."""
    plain = _plain(name)
    return plain.startswith("init") and ("v" in plain[4:])


def seat_helper(candidates: Iterable[tuple[str, Callable[..., Any]]]) -> Helper | None:
    """The one function among ``candidates`` (name, function) that makes the initial values
    for a seat it is given: its name says so, it has three parameters with no default (or
    a default on the seat), one of which names the symbol (``sym``, ``which_player``), one
    the environment, the other the triples. None where there is not exactly one."""
    found = []
    for name, function in candidates:
        if not _initial_words(name):
            continue
        try:
            parameters = list(inspect.signature(function).parameters.values())
        except (TypeError, ValueError):
            continue
        if len(parameters) != 3 or any(
            p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in parameters
        ):
            continue
        params: dict[str, str] = {}
        for p in parameters:
            role = role_of(p.name, [r for r in ("sym", "env") if r not in params.values()])
            role = role or role_of(
                p.name, [r for r in ("sym",) if r not in params.values()], loose=True
            )
            if role is not None:
                params[p.name] = role
        rest = [p.name for p in parameters if p.name not in params]
        if sorted(params.values()) == ["env", "sym"] and len(rest) == 1:
            params[rest[0]] = "triples"
            found.append(Helper(function, name, {p.name: params[p.name] for p in parameters}))
    return found[0] if len(found) == 1 else None
