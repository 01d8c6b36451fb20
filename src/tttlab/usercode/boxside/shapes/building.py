"""Build a student's object the way its own code builds it, and give it the rest of its roles
afterwards (standard library only).

The texts build their agents as ``Agent(eps, alpha)`` and ``Agent(epsilon, discount,
alpha)``; students write ``Agent(epsilon, learning_rate, symbol)``, ``Player(lr=0.1,
eps=0.2)`` or ``Agent(alpha, gamma, epsilon, player)``. :func:`construct` reads the
constructor's parameters and passes each role (the exploration rate, the step size, the
symbol...) to the parameter whose name says it is that role, by keyword (by position where
the parameter is positional only); a parameter with a default that names no role keeps its
default. A required parameter that names no role is filled by a fallback, the text's own
order, only where that order agrees with every parameter that does name a role; when the
parameters cannot be read (a C type, an ``Agent(*args)`` constructor), the fallbacks are
tried as they are. A constructor that still cannot be called is a :class:`NotBuilt` that
says so in one line, with the constructor it read.

:func:`give` then hands a role the constructor did not take to the object: through a setter
(``setV``, ``set_values``, ``set_symbol``...), else through the attribute its methods read
under a name of that role (:func:`~.reading.attributes_read`).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .reading import attributes_read

__all__ = [
    "ROLES",
    "Built",
    "NotBuilt",
    "construct",
    "give",
    "holds",
    "role_of",
    "setter_of",
    "signature_text",
]

#: Each role and the names that mean it (compared without case and underscores).
ROLES: dict[str, tuple[str, ...]] = {
    "eps": ("eps", "epsilon", "e", "explore", "exploration", "explorationrate", "epsilongreedy"),
    "alpha": ("alpha", "learningrate", "lr", "stepsize", "rate", "a", "learnrate"),
    "discount": ("discount", "gamma", "discountfactor", "discountrate", "df", "g"),
    "sym": (
        "sym",
        "symbol",
        "player",
        "mark",
        "piece",
        "side",
        "me",
        "turn",
        "who",
        "sign",
        "color",
        "colour",
        "token",
    ),
    "V": ("v", "values", "valuetable", "valuefunction", "table", "vtable", "initialv", "value"),
    "env": ("env", "environment", "environ"),
    # an Environment's own constructor: ``Environment(size=3)``, ``Environment(n=3, k=3)``
    "size": (
        "size",
        "length",
        "n",
        "boardsize",
        "boardlength",
        "dim",
        "dimension",
        "rows",
        "nrows",
        "numrows",
        "height",
    ),
    "columns": ("columns", "cols", "ncols", "numcols", "ncolumns", "numcolumns", "width"),
    "k": ("k", "win", "inarow", "winlength", "towin", "connect"),
}


def _plain(name: str) -> str:
    return re.sub(r"[_\s]", "", name).lower()


def _words(name: str) -> list[str]:
    """``learning_rate`` and ``learningRate`` → [learning, rate]."""
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)]


def role_of(
    parameter: str,
    wanted: Sequence[str],
    names: Mapping[str, str] | None = None,
    loose: bool = False,
) -> str | None:
    """The role among ``wanted`` that a name says, or None. ``names`` maps a role to the
    student's own name for it (``--name``); ``loose`` also takes a name one of whose words
    names exactly one role (``alpha_value``, ``player_mark``)."""
    plain = _plain(parameter)
    for role in wanted:
        theirs = (names or {}).get(role)
        if theirs is not None and _plain(theirs) == plain:
            return role
    for role in wanted:
        if plain in ROLES.get(role, (_plain(role),)):
            return role
    if not loose:
        return None
    words = set(_words(parameter))
    found = [r for r in wanted if words & set(ROLES.get(r, (_plain(r),)))]
    return found[0] if len(found) == 1 else None


class NotBuilt(Exception):
    """The object could not be built with the roles given (a one-line reason). ``unknown``
    are the required parameters that name no role, ``unmatched`` the roles no parameter
    took (each in order): what a ``--name`` could pair."""

    def __init__(
        self, message: str, unknown: Sequence[str] = (), unmatched: Sequence[str] = ()
    ) -> None:
        super().__init__(message)
        self.unknown, self.unmatched = list(unknown), list(unmatched)


class Built:
    """An object built, and how: ``passed`` are the roles the constructor took, ``call``
    the call in words, ``by`` "name" (each role to the parameter that names it),
    "position" (a fallback's order) or "default" (no role passed), and ``params`` each
    parameter given and its role."""

    def __init__(
        self,
        obj: Any,
        call: str,
        passed: set[str],
        by: str = "name",
        params: dict[str, str] | None = None,
    ) -> None:
        self.obj, self.call, self.passed = obj, call, passed
        self.by, self.params = by, params or {}
        #: The form the seat was given in, where not the environment's own symbol.
        self.seat: str | None = None


def signature_text(cls: Any) -> str:
    """``Agent(epsilon, learning_rate, symbol)``: the constructor as its code reads, or
    ``Agent(...)`` when it cannot be read."""
    name = getattr(cls, "__name__", "?")
    try:
        return f"{name}{inspect.signature(cls)}"
    except (TypeError, ValueError):
        return f"{name}(...)"


def _shown(value: Any, role: str) -> str:
    """A role's value as a call shows it: a number as it is, a table by its role's name."""
    if type(value) in (int, float, bool) or value is None:
        return repr(value)
    return role


#: Each class's parameters, read once (a check builds the student's class for every board,
#: and reading a signature costs as much as the call): by the class's identity, the class
#: kept so that its id is never another's.
_READ: dict[int, tuple[Any, list[inspect.Parameter] | None]] = {}


def _parameters(cls: Any) -> list[inspect.Parameter] | None:
    kept = _READ.get(id(cls))
    if kept is not None and kept[0] is cls:
        return kept[1]
    try:
        parameters: list[inspect.Parameter] | None = list(
            inspect.signature(cls).parameters.values()
        )
    except (TypeError, ValueError):
        parameters = None
    _READ[id(cls)] = (cls, parameters)
    return parameters


def construct(
    cls: Any,
    roles: Mapping[str, Any],
    fallbacks: Sequence[Sequence[str]] = (),
    names: Mapping[str, str] | None = None,
) -> Built:
    """``cls`` built with the ``roles`` its parameters name (``{"eps": 0.1, "alpha": 0.5}``).

    Parameters that name a role get it (``names`` maps a role to the student's own name
    for it); the others keep their defaults. A required parameter that names no role makes
    the ``fallbacks`` tried in turn (the roles in that order, by position: the text's own
    ``Agent(eps, alpha)``), each only where its order gives every parameter that names a
    role that role. What the constructor raises is the student's, and is raised."""
    name = getattr(cls, "__name__", "?")
    parameters = _parameters(cls)
    plain = [p for p in parameters or () if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if parameters is None or (not plain and any(p.kind == p.VAR_POSITIONAL for p in parameters)):
        return _called_as_the_text(cls, roles, fallbacks)  # nothing to read names from
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    matched: dict[str, str] = {}  # parameter -> role
    unknown: list[str] = []
    pending: list[Any] = []  # defaults of skipped positional-only parameters
    for parameter in plain:
        left = [r for r in roles if r not in matched.values()]
        required = parameter.default is parameter.empty
        role = role_of(parameter.name, left, names, loose=required)
        if role is None:
            if required:
                unknown.append(parameter.name)
            elif parameter.kind == parameter.POSITIONAL_ONLY:
                pending.append(parameter.default)
            continue
        matched[parameter.name] = role
        if parameter.kind == parameter.POSITIONAL_ONLY:
            args += [*pending, roles[role]]
            pending = []
        else:
            kwargs[parameter.name] = roles[role]
    if not unknown:
        shown = ", ".join(f"{p}={_shown(roles[r], r)}" for p, r in matched.items())
        built = cls(*args, **kwargs)
        return Built(built, f"{name}({shown})", set(matched.values()), "name", matched)
    for order in fallbacks:
        if _agrees(plain, order, matched):
            values = [roles[r] for r in order]
            params = {p.name: r for p, r in zip(plain, order, strict=False)}
            shown = ", ".join(f"{p}={_shown(roles[r], r)}" for p, r in params.items())
            return Built(cls(*values), f"{name}({shown})", set(order), "position", params)
    unmatched = [r for r in roles if r not in matched.values()]
    raise NotBuilt(
        f"{signature_text(cls)} needs {', '.join(unknown)}, which "
        f"{'names' if len(unknown) == 1 else 'name'} none of {', '.join(unmatched) or 'its roles'}",
        unknown,
        unmatched,
    )


def _agrees(plain: list[inspect.Parameter], order: Sequence[str], matched: dict[str, str]) -> bool:
    """Whether passing ``order`` by position fills every required parameter and gives
    each parameter that names a role that role."""
    positional = [p for p in plain if p.kind != p.KEYWORD_ONLY]
    if len(order) > len(positional):
        return False
    for k, parameter in enumerate(plain):
        if k < len(order) and parameter in positional:
            if matched.get(parameter.name, order[k]) != order[k]:
                return False
        elif parameter.default is parameter.empty:
            return False
    return True


def _called_as_the_text(
    cls: Any, roles: Mapping[str, Any], fallbacks: Sequence[Sequence[str]]
) -> Built:
    """A constructor whose parameters cannot be read, called as each fallback calls it: a
    ``TypeError`` is taken as the wrong call, and the next one is tried."""
    name = getattr(cls, "__name__", "?")
    last: BaseException | None = None
    for order in fallbacks:
        values = [roles[r] for r in order if r in roles]
        try:
            obj = cls(*values)
        except TypeError as error:
            last = error
            continue
        shown = ", ".join(_shown(v, r) for v, r in zip(values, order, strict=False))
        return Built(obj, f"{name}({shown})", set(order), "position" if values else "default")
    raise NotBuilt(f"{signature_text(cls)} cannot be called with {', '.join(roles)}: {last}")


def _methods(cls: Any) -> dict[str, str]:
    """The plain name of each public method of ``cls``, and its name."""
    found: dict[str, str] = {}
    try:
        listed = sorted(dir(cls))
    except BaseException:
        return found
    for attribute in listed:
        if not attribute.startswith("_"):
            found.setdefault(_plain(attribute), attribute)
    return found


def setter_of(obj: Any, role: str, names: Mapping[str, str] | None = None) -> str | None:
    """The name of ``obj``'s one-argument setter for ``role`` (``set`` and a name of the
    role: ``setV``, ``set_values``, ``set_symbol``...), or None."""
    methods = _methods(type(obj))
    own = [_plain(names[role])] if names and role in names else []
    for name in (*own, *ROLES.get(role, (_plain(role),))):
        found = methods.get("set" + name)
        if found is None:
            continue
        try:
            inspect.signature(getattr(obj, found)).bind(None)
        except BaseException:  # not one argument, or nothing to call
            continue
        return found
    return None


def holds(obj: Any, name: str) -> bool:
    """Whether ``obj`` holds a value named ``name``: in its own dict, or as a plain value
    in its class's (a method, a property or another descriptor there is no value to
    replace). Read from the dicts: no getter runs."""
    try:
        if name in object.__getattribute__(obj, "__dict__"):
            return True
    except BaseException:
        pass
    try:
        for klass in type(obj).__mro__:
            if klass is not object and name in vars(klass):
                return not _behaviour(vars(klass)[name])
    except BaseException:
        pass
    return False


def _behaviour(value: Any) -> bool:
    """Whether a class's entry is behaviour (a function, a descriptor), not a value."""
    kind = type(value)
    return callable(value) or any(hasattr(kind, h) for h in ("__get__", "__set__", "__delete__"))


def _defines(obj: Any, name: str) -> bool:
    """Whether the class of ``obj`` defines ``name`` as behaviour (a method, a property)."""
    try:
        return any(
            name in vars(k) and _behaviour(vars(k)[name])
            for k in type(obj).__mro__
            if k is not object
        )
    except BaseException:
        return True


def give(
    obj: Any,
    role: str,
    value: Any,
    names: Mapping[str, str] | None = None,
    setter: str | None = None,
    create: bool = False,
) -> str | None:
    """Give ``obj`` its ``role`` after it was built: through ``setter`` (the student's
    name, ``--name``), else its own setter (:func:`setter_of`), else as every attribute
    its methods read under a name of the role that it already holds (any such, when
    ``create``: a table or a symbol the student's main script sets). Says how
    (``"setter:set_values"``, ``"attribute:V"``), or None when there is no way. What the
    student's setter raises is its own, and is raised."""
    found = setter or setter_of(obj, role, names)
    if found is not None:
        getattr(obj, found)(value)
        return f"setter:{found}"
    read = sorted(
        n
        for n in attributes_read(type(obj))
        if role_of(n, [role], names) == role and not _defines(obj, n)
    )
    chosen = [n for n in read if holds(obj, n)] or (read if create else [])
    for name in chosen:
        setattr(obj, name, value)
    return f"attribute:{','.join(chosen)}" if chosen else None
