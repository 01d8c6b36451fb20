"""How the check builds the Q-learning text's ``Agent`` (standard library only): its
constructor's parameters get the text's epsilon, discount and alpha by their names,
positional or keyword, required or not, or in the text's order where they name none of them
(:func:`.building.construct`); ``--name epsilon=explore`` says which one is which. Where as
many required parameters name none of them as there are left unnamed, they take those in
the text's order. A value the constructor does not take is given to the agent afterwards
(:func:`.building.give`: its setter, or the attribute its methods read).

:func:`noted` says in a note how the agent was built when that was not the text's way, and
:func:`unbuilt` in one problem why it cannot be built, with the ``--name`` to paste.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

from .building import Built, NotBuilt, construct, give, signature_text

__all__ = ["PROBE", "TEXT", "Making", "again", "make", "noted", "unbuilt"]

#: The text's constructor: each role, and the text's name for it, in its order.
TEXT = (("eps", "epsilon"), ("discount", "discount"), ("alpha", "alpha"))
#: The names of the text's ``algorithm`` parameter: where one is required, it gets
#: ``"qlearning"`` (the checks call ``qlearning`` and ``sarsa`` themselves).
ALGORITHM = ("algorithm", "algo", "method", "mode")
#: The values the first agent is built with (distinct, so that a note shows which
#: parameter took which).
PROBE = (0.1, 0.9, 0.5)


@dataclass
class Making:
    """An agent built: how (:class:`~.building.Built`), the parameters that took a value by
    being the ones left, and how each value the constructor did not take was given
    (None: it could not be)."""

    done: Built
    paired: dict[str, str] = field(default_factory=dict)
    given: dict[str, str | None] = field(default_factory=dict)
    algorithm: str = ""
    #: Whether :func:`again` may build the next agents the same way, by keyword or
    #: position, without reading the constructor (no positional-only parameter).
    replayable: bool = False


def _names(renames: dict[str, str]) -> dict[str, str]:
    """``--name epsilon=explore`` as the roles' names (``{"eps": "explore"}``)."""
    return {role: renames[name] for role, name in TEXT if name in renames}


def make(cls: Any, renames: dict[str, str], values: tuple[float, ...]) -> Making:
    """``cls`` built with epsilon, discount and alpha (``values``, in the text's order).
    What its constructor (or a setter) raises is raised; :class:`NotBuilt` when it
    cannot be called."""
    roles: dict[str, Any] = {role: v for (role, _), v in zip(TEXT, values, strict=True)}
    order = [[role for role, _ in TEXT]]
    names = _names(renames)
    paired: dict[str, str] = {}
    algorithm = ""
    try:
        done = construct(cls, roles, order, names)
    except NotBuilt as error:
        unknown = list(error.unknown)
        algorithm = next((n for n in unknown if n.lower() in ALGORITHM), "")
        if algorithm:  # ``Agent(epsilon, discount, alpha, algorithm)``, with no default
            unknown.remove(algorithm)
            roles = {**roles, algorithm: "qlearning"}
        if unknown and len(unknown) == len(error.unmatched):
            paired = dict(zip(error.unmatched, unknown, strict=True))
        elif unknown or not algorithm:
            raise
        done = construct(cls, roles, order, {**names, **paired})
    making = Making(done, paired, algorithm=algorithm)
    for role, _ in TEXT:
        if role not in done.passed:
            making.given[role] = give(done.obj, role, roles[role], names)
    making.replayable = done.by == "position" or (
        done.by == "name" and all(_keyword(cls, p) for p in done.params)
    )
    return making


def _keyword(cls: Any, name: str) -> bool:
    """Whether ``cls``'s parameter ``name`` may be passed by keyword."""
    try:
        kind = inspect.signature(cls).parameters[name].kind
    except (TypeError, ValueError, KeyError):
        return False
    return kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def again(cls: Any, renames: dict[str, str], making: Making, values: tuple[float, ...]) -> Any:
    """Another agent with ``values``, built the way ``making`` was, without reading the
    constructor again (:func:`make` where that way cannot be replayed)."""
    if not making.replayable:
        return make(cls, renames, values).done.obj
    roles: dict[str, Any] = {role: v for (role, _), v in zip(TEXT, values, strict=True)}
    if making.algorithm:
        roles[making.algorithm] = "qlearning"
    done = making.done
    if done.by == "position":
        obj = cls(*(roles[role] for role, _ in TEXT))
    else:
        obj = cls(**{parameter: roles[role] for parameter, role in done.params.items()})
    for role, how in making.given.items():
        kind, _, where = (how or "").partition(":")
        if kind == "setter":
            getattr(obj, where)(roles[role])
        elif kind == "attribute":
            for name in where.split(","):
                setattr(obj, name, roles[role])
    return obj


def _listed(names: list[str]) -> str:
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + "".join(names[-1:])


_WORD = dict(TEXT)


def _how(how: str) -> str:
    """``"setter:set_eps"`` → ``"through set_eps()"``; ``"attribute:gamma"`` → ``"as its
    attribute gamma"``."""
    kind, _, where = how.partition(":")
    if kind == "setter":
        return f"through {where}()"
    return f"as its attribute{'s' if ',' in where else ''} {where.replace(',', ', ')}"


def noted(cls: Any, making: Making) -> str | None:
    """A note saying how ``making`` (built from :data:`PROBE`) was built when that was
    not the text's ``Agent(epsilon, discount, alpha)``, else None."""
    name = getattr(cls, "__name__", "Agent")
    done = making.done
    shares = [f"{word} {v!r}" for (_, word), v in zip(TEXT, PROBE, strict=True)]
    if done.call == f"{name}(" + ", ".join(s.replace(" ", "=") for s in shares) + ")":
        return None
    if done.by == "position" and not making.paired:
        note = (
            f"{name} built as {done.call}, in the text's order (epsilon, discount, alpha): "
            f"the parameters of {signature_text(cls)} do not name them all; if they come in "
            "another order, say which with --name epsilon=... --name discount=... "
            "--name alpha=..."
        )
    else:
        note = f"{name} built as {done.call}: its parameters matched by name to {_listed(shares)}"
    if making.paired:
        taken = [_WORD[r] for r in making.paired]
        which = "the one left" if len(taken) == 1 else "the ones left"
        note += f" ({_listed(list(making.paired.values()))} taken as {_listed(taken)}, {which})"
    given = [f"{_WORD[r]} {_how(how)}" for r, how in making.given.items() if how]
    if given:
        note += f"; not taken by the constructor: {_listed(given)}"
    if making.algorithm:
        note += f"; {making.algorithm} given as 'qlearning' (the checks call both methods)"
    lost = [_WORD[r] for r, how in making.given.items() if not how]
    if lost:
        note += f"; {_listed(lost)} cannot be given to it (its own value is used)"
    return note


def unbuilt(cls: Any, error: NotBuilt) -> str:
    """The one problem that says why the agent cannot be built, and the ``--name`` that
    builds it where one can."""
    head = f"{signature_text(cls)} cannot be built"
    unknown, unmatched = error.unknown, [_WORD.get(r, r) for r in error.unmatched]
    if unknown and len(unknown) < len(unmatched):
        pairs = " ".join(f"--name {a}={b}" for a, b in zip(unmatched, unknown, strict=False))
        verb = "is" if len(unknown) == 1 else "are"
        return f"{head}: if {_listed(unknown)} {verb} among {_listed(unmatched)}: {pairs}"
    if unknown:
        return (
            f"{head}: {_listed(unknown)} need{'s' if len(unknown) == 1 else ''} a default (the "
            "checks give it epsilon, discount and alpha alone, to the parameters that name "
            "them or in the text's order)"
        )
    return f"{head}: {error}"
