"""A submission's names, read from its source without running it: its files (in sub-folders
and packages too), the module each file is, what each module defines, which exercise it is,
where each of the exercise's names is found, what ``--name`` maps, and what to suggest when a
name is missing.

Nothing here runs the student's code: it reads the files (``ast``). What the code really
defines is found in the box (:mod:`tttlab.usercode.boxside.loading`); this side tells it where to
look first, and says where in words.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tttlab.errors import TttlabError
from tttlab.usercode.exercises import Exercise

__all__ = [
    "Module",
    "detect",
    "detect_all",
    "module_of",
    "python_files",
    "renames_of",
    "scan",
    "suggestions",
    "where",
]

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def python_files(path: Path) -> list[Path]:
    """The submission's Python files: the file itself, or every ``.py`` file under the
    folder, sub-folders and packages included (hidden folders, ``__pycache__`` and
    ``site-packages`` left out), in path order."""
    if not path.is_dir():
        return [path]
    found = []
    for file in sorted(path.rglob("*.py")):
        parts = file.relative_to(path).parts
        if any(p.startswith(".") or p in ("__pycache__", "site-packages") for p in parts):
            continue
        if file.is_file() and not file.is_symlink():
            found.append(file)
    return found


def module_of(relative: str | Path) -> str:
    """The module a file is, from its path in the submission (``model/environment.py`` is
    ``model.environment``, ``model/__init__.py`` is ``model``)."""
    parts = list(Path(relative).with_suffix("").parts)
    if len(parts) > 1 and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@dataclass
class Module:
    """What one file defines at its top level (read, not run)."""

    name: str
    #: Each function and the numbers of positional arguments it takes: (required, at most).
    functions: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Each class and the methods it defines.
    classes: dict[str, set[str]] = field(default_factory=dict)
    assigned: set[str] = field(default_factory=set)
    imported: set[str] = field(default_factory=set)
    #: Each function's positional parameters' names, in order.
    params: dict[str, list[str]] = field(default_factory=dict)

    def defines(self, name: str) -> bool:
        return name in self.functions or name in self.classes or name in self.assigned


def _arity(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    positional = len(node.args.posonlyargs) + len(node.args.args)
    most = 10**6 if node.args.vararg else positional
    return positional - len(node.args.defaults), most


def _read(name: str, text: str) -> Module:
    module = Module(name)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        # Refused by the parser, or nested too deep for it (``x = --...-1`` ends it in a
        # MemoryError, ``1+1+...+1`` in a RecursionError): still recognisable from its
        # definitions.
        for found in re.findall(r"^def (\w+)", text, flags=re.M):
            module.functions[found] = (0, 10**6)
        for found in re.findall(r"^class (\w+)", text, flags=re.M):
            module.classes[found] = set(re.findall(r"^\s+def (\w+)", text, flags=re.M))
        return module
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            module.functions[node.name] = _arity(node)
            module.params[node.name] = [a.arg for a in node.args.posonlyargs + node.args.args]
        elif isinstance(node, ast.ClassDef):
            methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            module.classes.setdefault(node.name, set()).update(methods)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                module.assigned |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                module.imported.add((alias.asname or alias.name).split(".")[0])
    return module


def scan(folder: Path, files: Iterable[Path]) -> list[Module]:
    """What each file defines, in file order (a file that cannot be read is left out)."""
    modules = []
    for file in files:
        try:
            text = file.read_text(errors="replace")
        except OSError:
            continue
        modules.append(_read(module_of(file.relative_to(folder)), text))
    return modules


def name_pairs(pairs: Iterable[str] | Mapping[str, str]) -> list[tuple[str, str]]:
    """``--name EXERCISE_NAME=STUDENT_NAME`` pairs (or a mapping) as (ours, theirs), stripped;
    theirs is empty where no ``=`` was given."""
    items = pairs.items() if isinstance(pairs, Mapping) else (p.partition("=")[::2] for p in pairs)
    return [(str(ours).strip(), str(theirs).strip()) for ours, theirs in items]


def renames_of(pairs: Iterable[str] | Mapping[str, str], exercise: Exercise) -> dict[str, str]:
    """``--name`` pairs (see :func:`name_pairs`), checked against the exercise's names: a
    function, a class, or an attribute of the student's objects."""
    known = exercise.nameable()
    renames: dict[str, str] = {}
    for ours, theirs in name_pairs(pairs):
        if not theirs:
            raise TttlabError(f"--name takes EXERCISE_NAME=STUDENT_NAME, got {ours!r}")
        if ours not in known:
            raise TttlabError(
                f"{ours!r} is not a name of the {exercise.key} exercise; "
                f"its names: {', '.join(known)}"
            )
        if not _NAME.fullmatch(theirs):
            raise TttlabError(f"--name {ours}={theirs}: {theirs!r} is not a Python name")
        if renames.get(ours, theirs) != theirs:
            raise TttlabError(f"--name {ours} is given twice ({renames[ours]}, {theirs})")
        renames[ours] = theirs
    return renames


#: The methods a human player of the course has (``Human``: its ``take_action`` asks for a
#: move): a class with no other is not the learning agent, whatever its name.
HUMAN = frozenset(
    {
        "__init__",
        "set_symbol",
        "set_sym",
        "set_player",
        "take_action",
        "update",
        "update_state_history",
        "update_state_histories",
    }
)


def _td_agent(methods: set[str], name: Callable[[str], str]) -> bool:
    """Whether a class with ``methods`` is the course's TD agent: ``update`` and
    ``take_action`` (under the student's names), and neither ``qlearning`` nor ``sarsa``
    (the Q-learning text's agent may have helpers of those names: it is that one)."""
    wanted = {name("update"), name("take_action")}
    return wanted <= methods and not {name("qlearning"), name("sarsa")} & methods


def detect_all(modules: list[Module], renames: Mapping[str, str] | None = None) -> list[str]:
    """Every exercise shape the files define, in the order they are graded: ``course`` (an
    ``Environment`` class with ``get_state``), ``td-agent`` (an ``Agent`` class with
    ``update`` and ``take_action``, and neither ``qlearning`` nor ``sarsa``; or the same
    agent named ``Player``, with a method a human player has not), ``board`` (a ``Board``
    class with ``play``), ``q-agent`` (an ``Agent`` with ``qlearning`` or ``sarsa``),
    ``cs50`` (``minimax`` or ``initial_state``) and ``mdp`` (``P`` and ``R`` assigned at the
    top level). Where none of them is found, a class of any other name that has the TD
    agent's methods (not a human player) makes it ``td-agent``, whose report then suggests
    the ``--name`` to paste. ``renames`` maps the exercise's names to the student's."""
    theirs = dict(renames or {})

    def name(ours: str) -> str:
        return theirs.get(ours, ours)

    classes: dict[str, set[str]] = {}
    functions: set[str] = set()
    assigned: set[str] = set()
    for module in modules:
        for cls, methods in module.classes.items():
            classes.setdefault(cls, set()).update(methods)
        functions |= set(module.functions)
        assigned |= module.assigned
    agent = classes.get(name("Agent"), set())
    player = classes.get(name("Player"), set())
    found = {
        "course": name("get_state") in classes.get(name("Environment"), set()),
        "td-agent": _td_agent(agent, name) or (_td_agent(player, name) and bool(player - HUMAN)),
        "board": name("play") in classes.get(name("Board"), set()),
        "q-agent": bool({name("qlearning"), name("sarsa")} & agent),
        "cs50": bool(functions & {name("minimax"), name("initial_state")}),
        "mdp": {name("P"), name("R")} <= assigned,
    }
    if not any(found.values()):
        found["td-agent"] = any(
            _td_agent(methods, name) and methods - HUMAN and not _human(cls)
            for cls, methods in classes.items()
        )
    return [shape for shape, there in found.items() if there]


def _human(cls: str) -> bool:
    return "human" in cls.lower()


def detect(modules: list[Module], renames: Mapping[str, str] | None = None) -> str | None:
    """The first exercise shape the files define (:func:`detect_all`), or None."""
    shapes = detect_all(modules, renames)
    return shapes[0] if shapes else None


def where(exercise: Exercise, modules: list[Module], renames: Mapping[str, str]) -> dict[str, str]:
    """Where each of the exercise's top-level names is found, as ``module.name`` (the
    student's name): the first file that defines it, else the first that imports it. A
    name no file defines as written is left out (the box may still find it)."""
    found: dict[str, str] = {}
    for entry in exercise.names:
        for ours in entry.split("|"):
            theirs = renames.get(ours, ours)
            home = next((m for m in modules if m.defines(theirs)), None)
            home = home or next((m for m in modules if theirs in m.imported), None)
            if home is not None:
                found[ours] = f"{home.name}.{theirs}"
                break
    return found


def suggestions(exercise: Exercise, missing: Iterable[str], modules: list[Module]) -> list[str]:
    """For each missing name, one line naming the student's definitions that could be it
    (a function of the same arity, a class with the methods the exercise calls, the most
    similar names first), with the ``--name`` to paste. A class that has two or more of
    the methods the exercise calls is suggested whatever its name (``Player``,
    ``TDLearner`` for the course's ``Agent``); one that has a single one, or a function,
    only under a similar name. A human player (``Human``) is never suggested."""
    lines = []
    for entry in missing:
        ours = entry.split("|")[0]
        wanted = set(exercise.members.get(ours, ()))
        if ours in exercise.members:
            options = [
                (cls, f"{m.name}.{cls}")
                for m in modules
                for cls, methods in m.classes.items()
                if wanted <= methods and cls != ours and not _human(cls)
            ]
        else:
            arity = exercise.arity.get(ours)
            options = [
                (fn, f"{m.name}.{fn}")
                for m in modules
                for fn, (least, most) in m.functions.items()
                if fn != ours
                and (arity is None or least <= arity <= most)
                and not _seat_left_out(m.params.get(fn, []), arity)
            ]
        if not options:
            continue
        own = set(exercise.nameable())  # the exercise's own names are there for themselves
        enough = 0.0 if len(wanted) >= 2 else 0.6
        scored = sorted(options, key=lambda o: -_likeness(ours, o[0]))
        best = [o for o in scored if o[0] not in own and _likeness(ours, o[0]) >= enough][:3]
        if not best:
            continue
        shown = " or ".join(where_ for _, where_ in best)
        lines.append(f"{ours} could be {shown}: --name {ours}={best[0][0]}")
    return lines


#: Words that name a seat: a parameter so named past the arity the exercise calls with
#: would be left at its default (a helper for both seats, called as one seat's).
SEAT_WORDS = frozenset({"sym", "symbol", "player", "seat", "side", "mark", "turn", "who", "piece"})


def _seat_left_out(params: list[str], arity: int | None) -> bool:
    """Whether calling with ``arity`` arguments leaves out a parameter that names a seat."""
    if arity is None:
        return False
    return any(_words(p) & SEAT_WORDS for p in params[arity:])


def _words(name: str) -> set[str]:
    """``initialV_x`` → {initial, v, x}."""
    return {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)}


def _likeness(ours: str, theirs: str) -> float:
    """How alike two names are: their letters in order, and the words they share (the
    ``x`` of ``init_x_vals`` tells it from ``init_o_vals``)."""
    letters = difflib.SequenceMatcher(None, ours.lower(), theirs.lower()).ratio()
    words = _words(ours)
    return letters + 0.5 * len(words & _words(theirs)) / max(len(words), 1)
