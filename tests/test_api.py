"""The Python API as a whole: each name means one thing, is listed and loads on first use,
every module imports by its dotted path, a position draws itself in a notebook, every error
class is tttlab's own, and the typed user script runs. Each of the API's modules has its own
tests (``tttlab.api.calls``: tests/api/test_calls.py, and so on)."""

from __future__ import annotations

import importlib
import types
from pathlib import Path

import pytest

import tttlab


def test_each_name_means_one_thing() -> None:
    """The API's functions never share a name with a subpackage, so every import form gives
    what it says, and importing a subpackage leaves the functions alone."""
    import tttlab.evaluation as judge_package
    import tttlab.learners.trainer
    import tttlab.planning.build
    import tttlab.solvers as solvers_package
    import tttlab.solvers.table as table_module
    from tttlab.solvers import solve_table

    assert isinstance(solvers_package, types.ModuleType)
    assert isinstance(judge_package, types.ModuleType)
    assert table_module.solve_table is solve_table
    for name in ("train", "evaluate", "solve", "mdp", "arena", "load", "position"):
        assert isinstance(getattr(tttlab, name), types.FunctionType), name
        assert not (Path(tttlab.__file__).parent / name).exists(), name
    assert tttlab.solve("3x3").value == 0
    assert tttlab.learners.trainer.Trainer is not None  # the subpackage is reachable too
    assert tttlab.planning.build.build_mdp is not None


def test_dir_lists_the_api_for_tab_completion() -> None:
    listed = dir(tttlab)
    for name in ("train", "evaluate", "solve", "mdp", "arena", "load", "TttlabError"):
        assert name in listed


def test_monkeypatching_an_api_name_sticks(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(*args: object, **kwargs: object) -> str:
        return "patched"

    monkeypatch.setattr(tttlab, "solve", fake)
    importlib.import_module("tttlab.solvers.summary")  # a subpackage import changes nothing

    assert tttlab.solve("3x3") == "patched"


def test_every_module_imports_by_its_dotted_path() -> None:
    root = Path(tttlab.__file__).parent
    names = [
        "tttlab." + ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        for path in sorted(root.rglob("*.py"))
        if path.name != "__main__.py"
    ]
    assert len(names) > 60
    for name in names:
        module = importlib.import_module(name.removesuffix(".__init__"))
        assert module.__name__ == name.removesuffix(".__init__")


def test_position_draws_itself_as_svg() -> None:
    position = tttlab.position("XXX/OO./...")
    svg = tttlab._position_svg(position)
    assert svg.startswith("<svg")
    assert svg.count('class="win"') == 3


def test_every_error_class_of_tttlab_is_a_tttlab_error() -> None:
    root = Path(tttlab.__file__).parent
    classes = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "__main__.py" or "boxside" in path.parts:
            continue  # the box's own code: standard library only, its errors never leave it
        name = "tttlab." + ".".join(path.relative_to(root).with_suffix("").parts)
        module = importlib.import_module(name.removesuffix(".__init__"))
        classes += [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, Exception)
            and value.__module__ == module.__name__
            and not issubclass(value, Warning)
        ]
    assert len(classes) >= 10
    outside = [c.__qualname__ for c in classes if not issubclass(c, tttlab.TttlabError)]
    # The only exception: the CLI's click error, which click itself turns into exit 2.
    assert outside == ["CommandError"]


def test_the_typed_user_script_runs(tmp_path: Path) -> None:
    """``tests/typecheck/user_script.py`` is what mypy checks; it must also run."""
    from tests.typecheck.user_script import main

    main(tmp_path)
    assert (tmp_path / "q.npz").exists()
