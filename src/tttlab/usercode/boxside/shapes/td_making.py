"""How a student's TD agent is made for a call (standard library only): its class (the
course's ``Agent``, or the same agent named ``Player``), built the way its constructor reads
(:func:`~.building.construct`), and given the rest of its roles (the exploration rate, the
step size, the symbol, the value table in the container its own code makes) by setter or
attribute (:func:`~.building.give`).

Each way that is not the text's (``Agent(eps, alpha)``, ``setV``, ``set_symbol``,
``state_history``) is kept as a short code that :mod:`.td_notes` words in a note; what cannot
be done is one :class:`~.building.NotBuilt` line that names the constructor and the
``--name`` to paste.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from ..schema import said
from .building import NotBuilt, construct, give, holds, role_of
from .reading import attributes_read, used_as_mapping
from .standin import SIZE
from .td_table import Tables

__all__ = ["CLASSES", "TEXT_SETTERS", "Made", "Maker", "agent_class", "call_text"]

#: The names the course's agent is found under, in order.
CLASSES = ("Agent", "Player")
#: The setters the text gives its agent: a role given through them needs no note.
TEXT_SETTERS = {"V": "setV", "sym": "set_symbol"}
#: The roles an agent is given, in the order they are given after it is built; the last
#: one it may do without.
GIVEN = ("V", "sym", "eps", "alpha", "discount")
#: The roles a ``--name`` can tell (the exercise's names for them).
NAMEABLE = ("eps", "alpha", "sym", "V", "discount")
#: What the text's ``Agent(eps, alpha)`` is called with, in order, where the parameters'
#: names say nothing (a ``*args`` constructor); then no argument at all.
FALLBACKS = (("eps", "alpha"), ())
#: The other forms a seat is given in (X's, O's) where the constructor refuses the
#: environment's own symbols: letters, 1 and -1 (X's the other way round from the
#: course's x = -1), 1 and 2.
SEATS: tuple[tuple[Any, Any], ...] = (("X", "O"), ("x", "o"), (1, -1), (1, 2))


def agent_class(ns: Any) -> tuple[Any, str]:
    """The student's agent class and the name it was found under (:data:`CLASSES`): the
    first that has ``update`` and ``take_action`` and is not abstract, else the first
    there is. Raises ``AttributeError`` when none is defined."""
    found = []
    for name in CLASSES:
        try:
            found.append((getattr(ns, name), name))
        except AttributeError:
            continue
    for cls, name in found:
        try:
            methods = all(callable(getattr(cls, m, None)) for m in ("update", "take_action"))
            if methods and not inspect.isabstract(cls):
                return cls, name
        except BaseException:
            continue
    if not found:
        raise AttributeError(" or ".join(CLASSES))
    return found[0]


def call_text(cls: Any) -> str:
    """``Agent(epsilon, learning_rate, symbol)``: the constructor's parameter names."""
    name = getattr(cls, "__name__", "?")
    try:
        shown = [
            str(p) if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) else p.name
            for p in inspect.signature(cls).parameters.values()
        ]
    except BaseException:
        return f"{name}(...)"
    return f"{name}({', '.join(shown)})"


class Made:
    """An agent made for a call: the agent, the table it was given, the attribute that
    holds its table ("" when not found: the table given is read back), and the ways it was
    made that are not the text's."""

    def __init__(self, agent: Any, table: Any, where: str, ways: list[str]) -> None:
        self.agent, self.table, self.where, self.ways = agent, table, where, ways
        #: How it was made, as a line to paste: ``{eps}``, ``{alpha}`` and ``{sym}`` stand
        #: for a case's values (:func:`_making`).
        self.making = ""


class Maker:
    """Makes the student's agent: ``renames`` are the ``--name`` pairs (the exercise's
    name to the student's), ``fresh`` makes an environment with an empty board."""

    def __init__(
        self,
        ns: Any,
        renames: Mapping[str, str],
        tables: Tables,
        fresh: Callable[[], Any],
        seats: Callable[[], tuple[Any, Any]] | None = None,
    ) -> None:
        self.ns, self.renames, self.tables, self.fresh = ns, renames, tables, fresh
        self.seats = seats
        self.names = {r: renames[r] for r in NAMEABLE if r in renames}
        self._read: dict[int, set[str]] = {}
        self._seat: dict[int, tuple[Any, Any] | None] = {}
        self._symbols: tuple[Any, Any] | None = None
        self._mapping: dict[int, bool] = {}

    def reads(self, cls: Any) -> set[str]:
        """The attribute names the methods of ``cls`` load (read once per class)."""
        if id(cls) not in self._read:
            self._read[id(cls)] = attributes_read(cls)
        return self._read[id(cls)]

    def table_names(self, cls: Any) -> set[str]:
        """The names the agent's methods read its table under."""
        own = {self.names["V"]} if "V" in self.names else set()
        return own | {n for n in self.reads(cls) if role_of(n, ["V"], self.names) == "V"}

    def mapping(self, cls: Any) -> bool:
        """Whether the agent's methods read its table as a mapping (read once per class)."""
        if id(cls) not in self._mapping:
            self._mapping[id(cls)] = used_as_mapping(cls, self.table_names(cls))
        return self._mapping[id(cls)]

    def make(self, eps: float, alpha: float, sym: int, seed: int, overrides: Any = ()) -> Made:
        """The agent with these roles, its table drawn from ``seed`` (with ``overrides``)."""
        cls, named = agent_class(self.ns)
        tables = self.table_names(cls)
        mapping = self.mapping(cls)
        table = self.tables.made(seed, overrides, mapping=mapping)
        roles = {"eps": eps, "alpha": alpha, "sym": sym, "V": table, "discount": 1.0}
        if any(role_of(n, ["env"]) for n in _parameter_names(cls)):
            roles["env"] = self.fresh()
        built = self._built(cls, roles)
        agent, ways = built.obj, [f"class:{named}"] if named != "Agent" else []
        if built.by != "name" or any(p != r for p, r in built.params.items()):
            shown = ",".join(f"{p}={r}" for p, r in built.params.items())
            ways.append(f"built:{built.by}:{shown}")
        elif built.passed - {"eps", "alpha"}:
            ways.append("built:name:" + ",".join(f"{p}={r}" for p, r in built.params.items()))
        given: list[tuple[str, str]] = []
        for role in GIVEN:
            if role in built.passed:
                continue
            value = roles[role]
            if role == "V":
                held = _held(agent, tables)
                if held is not None:
                    value = table = self.tables.made(seed, overrides, like=held, mapping=mapping)
            setter = self.renames.get(TEXT_SETTERS.get(role, ""))
            how = give(agent, role, value, self.names, setter, create=role in ("V", "sym"))
            if how is None and role != "discount":
                raise NotBuilt(f"{call_text(cls)}: no way to give it {role} (--name {role}=YOURS)")
            if how is not None and how != f"setter:{TEXT_SETTERS.get(role)}":
                ways.append(f"{role}:{how}")
            if how is not None:
                given.append((role, how))
        if built.seat is not None:
            ways.append(f"seat:{built.seat}")
        kind = self.tables.kind(table)
        if kind:
            ways.append(f"table:{kind}")
        made = Made(agent, table, self._where(agent, table, tables), ways)
        made.making = _making(getattr(cls, "__name__", named), built, given)
        return made

    def _built(self, cls: Any, roles: dict[str, Any]) -> Any:
        """``cls`` built with ``roles``, the seat in the form its constructor takes
        (:meth:`_form`). What it raises is a :class:`NotBuilt` line: the constructor, the
        call and what it raised, before any board is graded."""
        if id(cls) not in self._seat:
            self._seat[id(cls)] = self._form(cls, roles)
        form = self._seat[id(cls)]
        tried = dict(roles)
        if form is not None:
            tried["sym"] = form[0] if roles["sym"] == self.symbols()[0] else form[1]
        try:
            built = construct(cls, tried, FALLBACKS, self.names)
        except NotBuilt as error:
            raise NotBuilt(self._paste(cls, error)) from None
        except Exception as error:
            raise NotBuilt(_refused(cls, tried, error)) from None
        built.seat = None if form is None else f"{form[0]!r}/{form[1]!r}"
        return built

    def _form(self, cls: Any, roles: dict[str, Any]) -> tuple[Any, Any] | None:
        """The form of the seats the constructor takes: the environment's own symbols
        (None) where it takes those for both seats or takes no symbol, else the first of
        :data:`SEATS` it takes for both. Raises :class:`NotBuilt` where it takes none."""
        if not self._takes_symbol(cls):
            return None
        first: tuple[dict[str, Any], BaseException] | None = None
        for form in (None, *SEATS):
            seats = self.symbols() if form is None else form
            try:
                for value in seats:
                    construct(cls, {**roles, "sym": value}, FALLBACKS, self.names)
            except NotBuilt as error:
                raise NotBuilt(self._paste(cls, error)) from None
            except Exception as error:
                first = first or ({**roles, "sym": value}, error)
                continue
            return form
        assert first is not None
        raise NotBuilt(_refused(cls, *first))

    def symbols(self) -> tuple[Any, Any]:
        """The environment's own symbols (``env.x``, ``env.o``)."""
        if self._symbols is None:
            if self.seats is not None:
                self._symbols = self.seats()
            else:
                env = self.fresh()
                self._symbols = (env.x, env.o)
        return self._symbols

    def seat_values(self) -> list[str]:
        """X's and O's symbols as the agent was given them, as a line to paste writes them
        (``env.x``, or the form its constructor takes: ``'X'``)."""
        try:
            form = self._seat.get(id(agent_class(self.ns)[0]))
        except AttributeError:
            form = None
        return ["env.x", "env.o"] if form is None else [repr(form[0]), repr(form[1])]

    def _takes_symbol(self, cls: Any) -> bool:
        return any(role_of(n, ["sym"], self.names, loose=True) for n in _parameter_names(cls))

    def _paste(self, cls: Any, error: NotBuilt) -> str:
        """A constructor that cannot be called, in one line, with the ``--name`` to paste:
        its parameters that name no role, paired in order with the roles none took."""
        left = [r for r in error.unmatched if r in NAMEABLE]
        pairs = [f"--name {r}={u}" for u, r in zip(error.unknown, left, strict=False)]
        hint = " ".join(pairs) if pairs else "its parameters name none of eps, alpha, sym"
        return f"{call_text(cls)} cannot be built: {hint}"

    def _where(self, agent: Any, table: Any, tables: set[str]) -> str:
        """The attribute that holds the agent's table: the student's name for it, else the
        one that holds the table given, else one that reads as a table."""
        if "V" in self.names:
            return self.names["V"]
        try:
            found = object.__getattribute__(agent, "__dict__")
        except BaseException:
            return ""
        for name, value in list(found.items()):
            if value is table:
                return str(name)
        for name in sorted(tables):
            try:
                if holds(agent, name) and len(getattr(agent, name)) == SIZE:
                    return name
            except BaseException:
                continue
        return ""


#: What a role is written as in a line to paste.
_WRITTEN = {"eps": "{eps}", "alpha": "{alpha}", "sym": "{sym}", "V": "V", "env": "env"}


def _making(name: str, built: Any, given: list[tuple[str, str]]) -> str:
    """The agent's making as a line to paste (``agent = Agent(which_player={sym}, eps={eps},
    alpha={alpha}); agent.setV(V)``): its constructor as it was called, then each role given
    afterwards, by its setter or as its attribute."""
    if built.by == "position":
        args = ", ".join(_WRITTEN.get(r, "1.0") for r in built.params.values())
    else:
        args = ", ".join(f"{p}={_WRITTEN.get(r, '1.0')}" for p, r in built.params.items())
    parts = [f"agent = {name}({args})"]
    for role, how in given:
        kind, _, names = how.partition(":")
        value = _WRITTEN.get(role, "1.0")
        if kind == "setter":
            parts.append(f"agent.{names}({value})")
        else:
            parts += [f"agent.{n} = {value}" for n in names.split(",") if n]
    return "; ".join(parts)


def _refused(cls: Any, roles: dict[str, Any], error: BaseException) -> str:
    """A constructor that raised, in one line: it, the symbol it was given, what it raised."""
    return (
        f"{call_text(cls)} given the symbol {roles['sym']!r} raised {said(error)} (the agent "
        "is built before any board; --name sym=YOURS names the parameter that takes the symbol)"
    )


def _parameter_names(cls: Any) -> list[str]:
    try:
        return list(inspect.signature(cls).parameters)
    except BaseException:
        return []


def _held(agent: Any, tables: set[str]) -> Any:
    """The container the agent already holds its table in (a dict, a list, an array), or
    None: its table is then given in the course's."""
    for name in sorted(tables):
        try:
            if not holds(agent, name):
                continue
            value = getattr(agent, name)
        except BaseException:
            continue
        if isinstance(value, (dict, list)) or type(value).__name__ == "ndarray":
            return value
    return None
