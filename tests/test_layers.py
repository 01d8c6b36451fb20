"""The packages import only downwards (the README's layout section)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "tttlab"

#: Each package's layer; a module may import its own layer and those below it.
LAYER = {
    "game": 0,
    "render": 0,
    "solve": 1,
    "agents": 2,
    "exercise": 2,
    "mdp": 3,
    "train": 3,
    "evaluate": 3,
    "io": 3,
    "vector": 3,
    "neural": 4,
    "sweep": 5,
    "api": 5,
    "envs": 6,
    "web": 6,
    "cli": 6,
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


def test_every_package_has_a_layer() -> None:
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(LAYER)
