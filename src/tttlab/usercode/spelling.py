"""Names as students write them, read from the source without running it: ``gameOver`` for
``game_over``, ``X`` for ``x``, ``set_sym`` for ``set_symbol``, the environment class named
``TickTackToe``, the agent as ``EpsAgent(Agent)``.

:func:`spelled` finds, for each of the exercises' names that the submission does not define
as written, the one definition of the student's that means it: the same name in another
case or spelling (``camelCase`` for ``snake_case``: compared without case and underscores),
or one of the short forms students write (:data:`SHORT`). A class that is the course's
Environment or agent under another name is found by the methods it has (its bases' in the
submission included). Each name found this way is used as a ``--name`` would be, with a note
that says so; a name with two or more candidates is not guessed, and the note names them
with the line to paste (:attr:`Spelled.unsure`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from tttlab.usercode.names import Module

__all__ = ["SHORT", "Source", "Spelled", "inherited", "read_sources", "spelled"]

#: Short forms students write for the course's names (compared plain: no case, no ``_``).
SHORT: dict[str, tuple[str, ...]] = {
    "set_symbol": ("setsym", "setsymb", "setmark", "setplayer"),
    "setV": ("setvs", "setvalues", "setvaluefunction", "setvtable"),
    "update_state_history": ("updatehistory", "updatestatehistories"),
    "reset_history": ("resethistories", "clearhistory", "resetstatehistory"),
    "take_action": ("takeaction", "move", "act", "makemove"),
    "get_state": ("getstate", "gethash", "getstatehash"),
    "game_over": ("isgameover", "gameisover", "isover"),
    "play_game": ("playgame",),
}
#: The methods that make a class the course's Environment, and its agent (plain).
ENVIRONMENT_METHODS = ("getstate", "gameover")
AGENT_METHODS = ("takeaction", "update")
#: Classes other exercises name: never the Environment or the agent under another name.
OTHERS = frozenset({"Board", "Agent", "Environment", "Player", "State"})
#: The members only a learning agent has (a random or human opponent has neither).
LEARNING = frozenset({"updatestatehistory", "setv", "v", "statehistory", "values"})
#: The top-level names and the members (methods and attributes) a name may be found for.
TOP = ("Environment", "Agent", "get_state_hash_and_winner", "initialV_x", "initialV_o", "play_game")
ENVIRONMENT_MEMBERS: tuple[str, ...] = ("board", "x", "o", "winner", "ended", "get_state")
ENVIRONMENT_MEMBERS += ("game_over", "reward", "is_empty", "draw_board")
AGENT_MEMBERS: tuple[str, ...] = ("setV", "set_symbol", "take_action", "update_state_history")
AGENT_MEMBERS += ("update", "reset_history", "state_history")


def plain(name: str) -> str:
    """``game_over``, ``gameOver`` and ``GAMEOVER`` → ``gameover``."""
    return re.sub(r"[_\s]", "", name).lower()


@dataclass
class ClassDef:
    """A class as written: its bases' names, its methods and the attributes its methods
    set on ``self``."""

    bases: list[str] = field(default_factory=list)
    methods: set[str] = field(default_factory=set)
    attributes: set[str] = field(default_factory=set)


@dataclass
class Source:
    """What one file defines at its top level, with its classes' attributes."""

    functions: set[str] = field(default_factory=set)
    classes: dict[str, ClassDef] = field(default_factory=dict)


def _read(text: str) -> Source:
    found = Source()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return found
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.functions.add(node.name)
        elif isinstance(node, ast.ClassDef):
            cls = found.classes.setdefault(node.name, ClassDef())
            cls.bases += [b.id for b in node.bases if isinstance(b, ast.Name)]
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    if not _abstract(item):  # a stub a subclass fills does not count
                        cls.methods.add(item.name)
                elif isinstance(item, ast.Assign):
                    cls.attributes |= {t.id for t in item.targets if isinstance(t, ast.Name)}
            stored = [a for a in ast.walk(node) if isinstance(a, ast.Attribute)]
            stored = [a for a in stored if isinstance(a.ctx, ast.Store)]
            cls.attributes |= {a.attr for a in stored if getattr(a.value, "id", "") == "self"}
    return found


def _abstract(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a method only stands for one a subclass writes: its body (less a docstring)
    is ``pass``, ``...`` or ``raise NotImplementedError``."""
    body = [
        n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
    ]
    if not body:
        return True
    if len(body) != 1:
        return False
    only = body[0]
    if isinstance(only, ast.Pass):
        return True
    if isinstance(only, ast.Raise) and only.exc is not None:
        raised = only.exc.func if isinstance(only.exc, ast.Call) else only.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


def read_sources(files: Iterable[Path]) -> list[Source]:
    """What each file defines (a file that cannot be read is left out)."""
    found = []
    for file in files:
        try:
            found.append(_read(file.read_text(errors="replace")))
        except OSError:
            continue
    return found


@dataclass
class Spelled:
    """The names found (the exercise's name → the student's), a note for each, and the
    names with more than one candidate (a line each, with the ``--name`` to paste)."""

    renames: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    unsure: list[str] = field(default_factory=list)
    #: The names found by their spelling, in order (said in one note: :meth:`said`).
    spelt: list[str] = field(default_factory=list)

    def said(self, known: Iterable[str]) -> list[str]:
        """The notes on the names among ``known`` (the graded shapes' names)."""
        known = set(known)
        found = [n for n in self.notes if n.rpartition("--name ")[2].partition("=")[0] in known]
        pairs = [f"{n}={self.renames[n]}" for n in self.spelt if n in known]
        if pairs:
            found.append(f"names as you spell them, each used as a --name: {' '.join(pairs)}")
        return found + self.unsure


def _members(
    name: str, classes: Mapping[str, ClassDef], seen: frozenset[str] = frozenset()
) -> set[str]:
    """The methods and attributes of class ``name``, its bases' in the submission included."""
    cls = classes.get(name)
    if cls is None or name in seen:
        return set()
    found = cls.methods | cls.attributes
    for base in cls.bases:
        found |= _members(base, classes, seen | {name})
    return found


def _one(ours: str, names: Iterable[str]) -> list[str]:
    """The student's names that mean ``ours``: the same plain name, else a short form."""
    names = sorted(set(names))
    same = [n for n in names if plain(n) == plain(ours) and n != ours]
    if same:
        return same
    return [n for n in names if plain(n) in SHORT.get(ours, ())]


_SHORT_PLAIN = {plain(ours): forms for ours, forms in SHORT.items()}


def _has(members: set[str], wanted: Iterable[str], short: bool = True) -> bool:
    """Whether ``members`` hold each of ``wanted`` (plain), as written or (``short``) in a
    short form."""
    plains = {plain(m) for m in members}
    forms = _SHORT_PLAIN if short else {}
    return all(w in plains or any(s in plains for s in forms.get(w, ())) for w in wanted)


def _learns(cls: ClassDef) -> bool:
    """Whether a class has what only a learning agent has (its history, its table)."""
    return bool({plain(m) for m in cls.methods | cls.attributes} & LEARNING)


def _class_for(
    ours: str, wanted: tuple[str, ...], classes: Mapping[str, ClassDef], out: Spelled
) -> str | None:
    """The student's class for ``ours`` (the Environment, the Agent): itself where it has
    ``wanted`` (plain), else the one class that has them (a subclass of it first)."""
    short = ours != "Environment"  # an Environment is found by the course's own methods
    found = [
        c
        for c in sorted(classes)
        if c != ours
        and c not in OTHERS
        and "human" not in c.lower()
        and _has(_members(c, classes), wanted, short)
    ]
    if ours in classes and _has(_members(ours, classes), wanted, short):
        found = [c for c in found if ours in classes[c].bases or _learns(classes[c])]
        if found and ours == "Agent":  # another learning agent: said, not graded
            out.unsure.append(
                f"not graded: your {', '.join(found)}, also agent-like; the checks are "
                f"{ours}'s (--name {ours}={found[0]} grades {found[0]})"
            )
        return ours
    below = [c for c in found if ours in classes[c].bases]
    chosen = below if len(below) == 1 else found
    if len(chosen) == 1:
        out.renames[ours] = chosen[0]
        how = f"as a subclass of your {ours}" if chosen == below and below else "by its methods"
        out.notes.append(f"{ours}: your class {chosen[0]}, found {how} (--name {ours}={chosen[0]})")
        return chosen[0]
    if len(chosen) > 1:
        out.unsure.append(
            f"{ours} could be any of {', '.join(chosen)}, none graded as it: "
            f"--name {ours}={chosen[0]}"
        )
    return None


def _classes(sources: list[Source]) -> dict[str, ClassDef]:
    classes: dict[str, ClassDef] = {}
    for source in sources:
        for name, cls in source.classes.items():
            kept = classes.setdefault(name, ClassDef())
            kept.bases += cls.bases
            kept.methods |= cls.methods
            kept.attributes |= cls.attributes
    return classes


def inherited(modules: list[Module], sources: list[Source]) -> list[Module]:
    """``modules`` with each class's methods joined by its bases' in the submission
    (``EpsAgent(Agent)`` has the ``update`` its base defines)."""
    classes = _classes(sources)

    def methods(name: str, seen: frozenset[str]) -> set[str]:
        cls = classes.get(name)
        if cls is None or name in seen:
            return set()
        found = set(cls.methods)
        for base in cls.bases:
            found |= methods(base, seen | {name})
        return found

    return [
        replace(m, classes={c: own | methods(c, frozenset()) for c, own in m.classes.items()})
        for m in modules
    ]


def spelled(sources: list[Source], given: Mapping[str, str]) -> Spelled:
    """The names of the course's Environment, agent and helpers the submission writes its
    own way (``given``: the ``--name`` pairs, which always win)."""
    out = Spelled()
    classes = _classes(sources)
    functions = {f for source in sources for f in source.functions}
    where: dict[str, tuple[str, ...]] = {}
    if "Environment" not in given:
        env = _class_for("Environment", ENVIRONMENT_METHODS, classes, out)
        if env is not None:
            where[env] = ENVIRONMENT_MEMBERS
    if "Agent" not in given and "Player" not in given:
        agent = _class_for("Agent", AGENT_METHODS, classes, out)
        if agent is not None:
            where[agent] = AGENT_MEMBERS
    for cls, members in where.items():
        have = _members(cls, classes)
        for ours in members:
            if ours in given or ours in have:
                continue
            _found(ours, _one(ours, have), f"{cls}.", out)
    for ours in TOP[2:]:
        if ours not in given and ours not in functions:
            _found(ours, _one(ours, functions), "", out)
    return out


def _found(ours: str, candidates: list[str], where: str, out: Spelled) -> None:
    if len(candidates) == 1 and ours not in out.renames:
        out.renames[ours] = candidates[0]
        out.spelt.append(ours)
    elif len(candidates) > 1:
        out.unsure.append(
            f"{where}{ours} could be {' or '.join(candidates)}: --name {ours}={candidates[0]}"
        )
