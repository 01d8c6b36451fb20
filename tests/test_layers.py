"""The packages import only downwards (the README's layout section)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "tttlab"

#: Each package's layer; a module may import its own layer and those below it.
LAYER = {
    "errors": 0,
    "limits": 0,
    "atomic": 0,
    "numbacache": 0,
    "schedules": 0,
    "hyperparameters": 0,
    "game": 0,
    "render": 0,
    "verifier": 0,
    "strictjson": 0,
    "certrules": 0,
    "solvers": 1,
    "agents": 2,
    "exercise": 2,
    "planning": 3,
    "learners": 3,
    "evaluation": 3,
    "io": 3,
    "unboxed": 3,
    "vector": 3,
    "neural": 4,
    "usercode": 4,
    "training": 5,
    "sweep": 6,
    "api": 6,
    "envs": 7,
    "web": 7,
    "cli": 7,
    "jupyter": 7,
    "integrations": 7,
}


def _imports(path: Path) -> set[str]:
    """Every tttlab subpackage the file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "tttlab" and len(parts) > 1:
                found.add(parts[1])
    return found


PACKAGES = sorted(p for p in LAYER if (SRC / p).is_dir() or (SRC / f"{p}.py").is_file())


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_only_go_down(package: str) -> None:
    root = SRC / package
    files = sorted(root.rglob("*.py")) if root.is_dir() else [SRC / f"{package}.py"]
    assert files
    upward = {
        f"{path.relative_to(SRC)} imports tttlab.{name}"
        for path in files
        for name in _imports(path)
        if name in LAYER and LAYER[name] > LAYER[package]
    }
    assert not upward


def test_every_package_and_module_has_a_layer() -> None:
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.stem for p in SRC.glob("*.py") if not p.name.startswith("_")}
    assert packages | modules == set(LAYER)


def test_no_function_of_the_api_shares_a_name_with_a_subpackage() -> None:
    functions = {
        node.name
        for module in ("calls.py", "judging.py")
        for node in ast.parse((SRC / "api" / module).read_text()).body
        if isinstance(node, ast.FunctionDef)
    }
    assert {"train", "evaluate", "solve", "mdp", "check"} <= functions
    assert not functions & set(LAYER)


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(path: Path) -> set[str]:
    """Every module the file imports when it runs: at the top or inside a function (an
    import deferred into a function still needs the other module), not under ``if
    TYPE_CHECKING:``, which never runs. ``from M import N`` names M and M.N (N may be a
    module); relative imports are resolved."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            module = ".".join(base) if node.level else ""
            module = ".".join(p for p in (module, node.module or "") if p)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return found


def _cycle(edges: dict[str, set[str]]) -> list[str]:
    """One cycle of the graph, as the path round it (its first module again at the end),
    or an empty list when there is none."""
    done: set[str] = set()
    path: list[str] = []

    def walk(node: str) -> list[str]:
        path.append(node)
        for after in sorted(edges[node]):
            if after in path:
                return [*path[path.index(after) :], after]
            if after not in done and (found := walk(after)):
                return found
        path.pop()
        done.add(node)
        return []

    for node in sorted(edges):
        if node not in done and (found := walk(node)):
            return found
    return []


@pytest.mark.parametrize("package", [p for p in PACKAGES if (SRC / p).is_dir()])
def test_the_modules_of_a_package_import_each_other_without_a_cycle(package: str) -> None:
    """Within each package too the imports go one way (api: checks, display, results,
    judging, agents, calls). A module's import of its own package (the package's
    ``__init__``, which gathers its names) is left out."""
    modules = {_module_name(path): path for path in (SRC / package).rglob("*.py")}
    edges = {
        name: {
            other
            for other in _runtime_imports(path) & modules.keys()
            if other != name and not name.startswith(f"{other}.")
        }
        for name, path in modules.items()
    }
    cycle = _cycle(edges)
    assert not cycle, " -> ".join(cycle)
