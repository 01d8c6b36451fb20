"""The agent plays on the student's own ``Environment`` wherever that class adds what the
course's does not (standard library only).

An agent may read what its author's Environment has beyond the course's: ``env.size``,
``env.LENGTH``, ``env.moves()``, ``env.is_cell_empty(i, j)``. The environments it plays on
are made from a class built here at run time whose bases are the stand-in
(:class:`~.standin.Environment`), then the student's class: every member of the course's
Environment is the stand-in's (the board, the symbols, the states, the end of the game and
the rewards stay tttlab's), everything else the student's. The attributes the student's
``__init__`` sets beyond the course's are kept from one run of it, with the arguments its
parameters name (``size=3``); an ``__init__`` that cannot be run leaves its class's
methods. A student's class that cannot be a base (none found, not a class, a layout or a
metaclass that does not mix) leaves the plain stand-in.

Whatever the student's class makes of attribute access is set aside on the mixed class
(its ``__getattribute__``, ``__setattr__``, a property over a course name); its
``__getattr__`` still answers for the names neither class has.
"""

from __future__ import annotations

import copy
import types
from typing import Any

from .building import NotBuilt, construct
from .standin import INSTANCE, Environment

__all__ = ["Played", "mixed_class"]

#: What the student's ``__init__`` is given, by the names its parameters use
#: (``Environment(length=3)``, ``Environment(n=3, win=3)``: :data:`~.building.ROLES`).
INIT_ROLES = {"size": 3, "k": 3}


def _own(cls: type, name: str) -> Any:
    """``name`` as the classes of ``cls`` other than ``object`` define it, or None."""
    for klass in cls.__mro__:
        if klass is not object and name in vars(klass):
            return vars(klass)[name]
    return None


def _slot(name: str) -> property:
    """A course attribute kept in the instance's dict, whatever the student's class makes
    of that name (a property, a class attribute)."""

    def get(self: Any) -> Any:
        try:
            return object.__getattribute__(self, "__dict__")[name]
        except KeyError:
            raise AttributeError(name) from None

    def put(self: Any, value: Any) -> None:
        object.__getattribute__(self, "__dict__")[name] = value

    return property(get, put)


def _alias(ours: str) -> property:
    """The student's name for a course attribute (``--name board=tiles``)."""
    return property(lambda self: getattr(self, ours), lambda self, v: setattr(self, ours, v))


def mixed_class(theirs: Any, aliases: dict[str, str], why: list[str] | None = None) -> type | None:
    """The stand-in with ``theirs`` behind it, or None where ``theirs`` cannot be a base.
    ``why`` holds why the student's ``__init__`` could not be run, once known: a name
    neither class has then says so."""
    if not isinstance(theirs, type) or issubclass(Environment, theirs):
        return None
    namespace: dict[str, Any] = {
        "__getattribute__": object.__getattribute__,
        "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__,
        "__module__": __name__,
    }
    try:
        for name in INSTANCE:
            if _own(theirs, name) is not None:
                namespace[name] = _slot(name)
        for name, ours in aliases.items():
            namespace[name] = _alias(ours)
        fallback = _own(theirs, "__getattr__")
    except BaseException:
        return None

    def __getattr__(self: Any, name: str) -> Any:  # noqa: N807 (the hook's own name)
        if fallback is not None and not name.startswith("__"):
            return fallback(self, name)
        if why:
            raise AttributeError(f"'Environment' has no attribute {name!r} (its __init__ {why[0]})")
        raise AttributeError(f"'Environment' has no attribute {name!r} (use --name)")

    namespace["__getattr__"] = __getattr__
    try:
        return type("Environment", (Environment, theirs), namespace)
    except BaseException:  # a layout, a metaclass, a __init_subclass__ that refuses
        return None


def _copied(value: Any) -> Any:
    try:
        return copy.copy(value)
    except BaseException:
        return value


class Played:
    """The environments an agent plays on: the stand-in, with the student's Environment
    class ``theirs`` behind it where it can be (None: none found). ``additions`` are the
    names the student's class has beyond the course's; ``init`` is the call its
    ``__init__`` was run with when given arguments, ``why`` why it could not be run."""

    def __init__(self, np: Any, theirs: Any, aliases: dict[str, str]) -> None:
        self.np, self.aliases = np, aliases
        self.why: list[str] = []
        self.mixed = mixed_class(theirs, aliases, self.why) if theirs is not None else None
        self.extras: dict[str, Any] | None = None
        self.init = ""
        self.additions: list[str] = []
        if self.mixed is not None:
            course = set(dir(Environment)) | set(INSTANCE)
            own = {n for k in self.mixed.__mro__[2:-1] for n in vars(k) if not n.startswith("__")}
            self.additions = sorted(own - course - set(aliases))

    def _blank(self, mixed: type) -> Any:
        env: Any = object.__new__(mixed)
        Environment.__init__(env, self.np, self.aliases)
        return env

    def _extras(self, mixed: type) -> dict[str, Any]:
        """The attributes the student's ``__init__`` sets beyond the course's (run once)."""
        if self.extras is None:
            self.extras = {}
            theirs = mixed.__mro__[2]
            try:
                env = self._blank(mixed)
                init = _own(theirs, "__init__")
                if init is not None:
                    built = construct(types.MethodType(init, env), INIT_ROLES)
                    self.init = built.call.replace("__init__", theirs.__name__) * bool(built.passed)
                skip = {*INSTANCE, *self.aliases}
                found = dict(object.__getattribute__(env, "__dict__"))
                self.extras = {k: v for k, v in found.items() if k not in skip}
            except NotBuilt:
                self.why.append("needs arguments tttlab cannot name")
            except BaseException as error:
                self.why.append(f"raised {type(error).__name__}")
            self.additions = sorted({*self.additions, *self.extras})
        return self.extras

    def fresh(self) -> Any:
        """A new environment with an empty board."""
        if self.mixed is None:
            return Environment(self.np, self.aliases)
        try:
            extras = self._extras(self.mixed)
            env = self._blank(self.mixed)
        except BaseException:  # the mix cannot be made after all: the plain stand-in
            self.mixed, self.additions = None, []
            return Environment(self.np, self.aliases)
        object.__getattribute__(env, "__dict__").update({k: _copied(v) for k, v in extras.items()})
        return env
