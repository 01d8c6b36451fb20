"""numba's cache kept from serving stale code (:mod:`tttlab.numbacache`): numba keeps a cached
function whose own file is unchanged, whatever changed in the modules it takes code from; so
every module of the package that each cached function takes code from is written down with
its digest, and a function with a stale digest is compiled again rather than read back."""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import re
import sys
import textwrap
import types
from functools import cache
from pathlib import Path
from typing import Any

import numba
import pytest
from numba.core.dispatcher import Dispatcher

from tttlab import numbacache
from tttlab.numbacache import cacheable, digest, stale

SRC = Path(numbacache.__file__).resolve().parent


def _name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: The package's modules that use numba, by their text.
COMPILING = sorted(
    _name(path)
    for path in SRC.rglob("*.py")
    if re.search(r"^\s*(import numba|from numba)", path.read_text(), re.MULTILINE)
)


@cache
def _definitions(module: str) -> dict[str, tuple[str, str] | ast.expr | None]:
    """Where each top-level name of a module comes from: (module, name) for an import, the
    expression for an assignment, None for a definition."""
    found: dict[str, tuple[str, str] | ast.expr | None] = {}
    for node in ast.parse(inspect.getsource(sys.modules[module])).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                found[alias.asname or alias.name] = (node.module, alias.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        found[name.id] = node.value
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found[node.name] = None
    return found


Reached = tuple[frozenset[str], tuple[Dispatcher, ...]]


def _value_of(module: str, name: str) -> Reached:
    """The package's modules whose text the value of ``module.name`` is taken from as
    numba compiles it in (a constant: where it is defined; a compiled function: itself)."""
    if not module.startswith("tttlab"):
        return frozenset(), ()
    namespace = vars(importlib.import_module(module))
    if name not in namespace:  # a builtin
        return frozenset(), ()
    value = namespace[name]
    if isinstance(value, Dispatcher):
        return frozenset(), (value,)
    if isinstance(value, types.ModuleType):  # read through its attributes
        return frozenset(), ()
    where = _definitions(module).get(name)
    if isinstance(where, tuple):
        return _value_of(*where)
    if isinstance(where, ast.expr):
        modules, dispatchers = _read(module, where, frozenset())
        return modules | {module}, dispatchers
    return frozenset({module}), ()


def _read(module: str, node: ast.AST, local: frozenset[str]) -> Reached:
    """What the names and ``module.attribute`` reads of ``node`` (code of ``module``) reach."""
    modules: set[str] = set()
    dispatchers: list[Dispatcher] = []
    namespace = vars(importlib.import_module(module))
    for sub in ast.walk(node):
        found: Reached = (frozenset(), ())
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
            base = namespace.get(sub.value.id)
            if isinstance(base, types.ModuleType):
                found = _value_of(base.__name__, sub.attr)
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id not in local:
            found = _value_of(module, sub.id)
        modules |= found[0]
        dispatchers += found[1]
    return frozenset(modules), tuple(dispatchers)


def _direct(dispatcher: Dispatcher) -> Reached:
    """The modules a compiled function's own body reads, and the compiled functions it calls."""
    function = dispatcher.py_func
    tree = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
    assert isinstance(tree, ast.FunctionDef)
    arguments = tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs
    local = frozenset(
        {a.arg for a in arguments}
        | {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    )
    body = ast.Module(body=tree.body, type_ignores=[])  # not its decorators nor annotations
    modules, dispatchers = _read(function.__module__, body, local)
    return modules | {function.__module__}, dispatchers


def compiled_from(dispatcher: Dispatcher) -> set[str]:
    """Every module whose text is compiled into ``dispatcher``: its own, and those of all the
    functions it calls or inlines and all the constants they read, all the way down."""
    modules: set[str] = set()
    todo, seen = [dispatcher], set()
    while todo:
        now = todo.pop()
        if id(now) not in seen:
            seen.add(id(now))
            found, callees = _direct(now)
            modules |= found
            todo += callees
    return modules


def _dispatchers() -> list[Dispatcher]:
    found: dict[int, Dispatcher] = {}
    for name in COMPILING:
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, Dispatcher):
                found[id(value)] = value
    return list(found.values())


def _required() -> dict[str, set[str]]:
    """For each module holding compiled functions: the other modules compiled into them."""
    required: dict[str, set[str]] = {}
    for dispatcher in _dispatchers():
        owner = dispatcher.py_func.__module__
        required.setdefault(owner, set()).update(compiled_from(dispatcher) - {owner})
    return required


def test_every_module_compiled_into_a_cached_function_is_written_down() -> None:
    """numba's cache knows only a function's own file: every other module that a function
    takes code or constants from is in its module's ``COMPILED_FROM``, none missing, none
    extra."""
    required = _required()
    assert required["tttlab.solvers.kernel"] >= {
        "tttlab.solvers.alphabeta",  # settles, EXACT: called through another module's wrap
        "tttlab.solvers.pairing",  # holds_by_pairing: called, not inlined
        "tttlab.solvers.slots",  # probe, EMPTIES: inlined, and read through the module
    }
    assert "tttlab.schedules" in required["tttlab.learners.kernels"]
    assert {"tttlab.game.compiled", "tttlab.agents.mcts", "tttlab.solvers.table"} <= set(required)
    wrong = {
        owner: sorted(modules)
        for owner, modules in required.items()
        if set(getattr(sys.modules[owner], "COMPILED_FROM", {})) != modules
    }
    assert not wrong, f"COMPILED_FROM (with digests) should name these modules: {wrong}"


def test_the_digests_written_down_are_those_of_the_modules_now() -> None:
    """Fails on a stale compiled function: a module it takes code from changed since its
    digest was written, and numba's cache would serve the old code once it is written."""
    for name in COMPILING:
        module = importlib.import_module(name)
        written = getattr(module, "COMPILED_FROM", None)
        if written is not None:
            now = {other: digest(other) for other in written}
            assert stale(written) == [], f"write {name}.COMPILED_FROM = {now!r}"
            assert module.CACHE is True


def _numba_calls(tree: ast.Module) -> list[tuple[ast.Call, bool]]:
    """Each call with a ``cache`` keyword, and whether it is at the module's top level (a
    top-level function's decorator, or an assignment's value)."""
    top: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            top.update(id(sub) for d in node.decorator_list for sub in ast.walk(d))
        elif isinstance(node, ast.Assign):
            top.update(id(sub) for sub in ast.walk(node.value))
    return [
        (node, id(node) in top)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and any(k.arg == "cache" for k in node.keywords)
    ]


@pytest.mark.parametrize("name", COMPILING)
def test_every_cached_function_is_seen_and_compiled_under_the_digests(name: str) -> None:
    """Every cached function is a module's name (so the checks above see it), and in a
    module with digests every one is cached only while they hold (``cache=CACHE``)."""
    module = importlib.import_module(name)
    tree = ast.parse(inspect.getsource(module))
    calls = _numba_calls(tree)
    assert all(top for _, top in calls), f"{name} compiles with a cache below its top level"
    if hasattr(module, "COMPILED_FROM"):
        assert "CACHE = cacheable(COMPILED_FROM)" in inspect.getsource(module)
        for call, _ in calls:
            (keyword,) = [k for k in call.keywords if k.arg == "cache"]
            assert ast.unparse(keyword.value) == "CACHE", f"{name}:{call.lineno}"
    for value in vars(module).values():
        function = getattr(value, "py_func", None)
        if (
            isinstance(value, Dispatcher)
            and function.__module__ != name
            and getattr(sys.modules[function.__module__], function.__name__, None) is not value
        ):
            # compiled here from another module's function: numba keys it on that module's
            # text, whose digests (had it any) would not guard it here
            assert compiled_from(value) == {function.__module__}


def test_stale_names_the_modules_whose_text_changed() -> None:
    own = hashlib.sha256(Path(numbacache.__file__).read_bytes()).hexdigest()[:16]
    assert digest("tttlab.numbacache") == own
    written = {"tttlab.numbacache": own, "tttlab.errors": "0" * 16, "tttlab.nothing": own}
    assert stale(written) == ["tttlab.errors", "tttlab.nothing"]
    assert not cacheable(written)
    assert cacheable({"tttlab.numbacache": own})
    assert cacheable({})


CALLEE = """\
import numba as nb

STEP = {step}


@nb.njit(cache=True, inline="always")
def inlined():
    return STEP


@nb.njit(cache=True)
def called():
    return 10 * STEP
"""

CALLER = """\
import numba as nb

from numbacache_demo.callee import STEP, called, inlined
{guard}

@nb.njit(cache={cache})
def parts():
    return inlined(), called(), STEP
"""

GUARD = """from tttlab.numbacache import cacheable

COMPILED_FROM = {{"numbacache_demo.callee": "{digest}"}}
CACHE = cacheable(COMPILED_FROM)
"""


def test_numba_keeps_a_stale_caller_and_the_digests_compile_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a package of its own: a caller cached by numba as it is runs the old code of the
    module it inlines, calls and reads a constant from, once only that module changed; the
    same caller under its digests is compiled again, and cached again once they are new.
    Each load imports the modules anew, and with them new compiled functions, each of which
    reads numba's cache from the disk as a new process would."""
    package = tmp_path / "numbacache_demo"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "plain.py").write_text(CALLER.format(guard="", cache="True"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # a .pyc keyed on whole seconds
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")  # numba's cache beside the files

    def write(step: int) -> None:
        (package / "callee.py").write_text(CALLEE.format(step=step))

    def guard() -> None:
        sha = hashlib.sha256((package / "callee.py").read_bytes()).hexdigest()[:16]
        (package / "guarded.py").write_text(
            CALLER.format(guard=GUARD.format(digest=sha), cache="CACHE")
        )

    def load() -> dict[str, Any]:
        importlib.invalidate_caches()
        found: dict[str, Any] = {}
        for name in ("callee", "plain", "guarded"):
            sys.modules.pop(f"numbacache_demo.{name}", None)
            module = importlib.import_module(f"numbacache_demo.{name}")
            if name != "callee":
                parts = list(module.parts())
                found[name] = [parts, sum(module.parts.stats.cache_hits.values())]
        found["stale"] = stale(module.COMPILED_FROM)
        return found

    try:
        write(1)
        guard()
        assert load() == {"plain": [[1, 10, 1], 0], "guarded": [[1, 10, 1], 0], "stale": []}
        write(2)  # only the callee's module changes
        assert load() == {
            "plain": [[1, 10, 1], 1],  # numba's cache: the old code, read back
            "guarded": [[2, 20, 2], 0],  # the digest no longer holds: compiled again
            "stale": ["numbacache_demo.callee"],
        }
        guard()  # the digest written anew
        assert load()["guarded"] == [[2, 20, 2], 0]
        assert load() == {"plain": [[1, 10, 1], 1], "guarded": [[2, 20, 2], 1], "stale": []}
    finally:
        for name in ("", ".callee", ".plain", ".guarded"):
            sys.modules.pop(f"numbacache_demo{name}", None)
