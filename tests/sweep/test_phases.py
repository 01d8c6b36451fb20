"""make test runs the tests that start Ray (marker ``ray``) alone, after the parallel run: the
parallel run leaves them out, and the Ray phase finds every one of them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAKEFILE = (ROOT / "Makefile").read_text()


def recipe(target: str, makefile: str = MAKEFILE) -> str:
    """The commands of ``target``, joined (a line ending in a backslash goes on)."""
    match = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", makefile, flags=re.MULTILINE)
    if match is None:
        raise LookupError(f"no target {target}")
    return match.group(1).replace("\\\n", " ")


def ray_marked(root: Path = ROOT) -> set[Path]:
    """The test files that mark tests ``ray``."""
    return {
        path.relative_to(root)
        for path in (root / "tests").rglob("test_*.py")
        if re.search(r"\bpytest\.mark\.ray\b", path.read_text())
    }


def test_the_parallel_run_leaves_the_ray_tests_out_and_the_ray_phase_runs_them() -> None:
    assert '-m "not ray"' in recipe("unit")
    assert "-n auto" in recipe("unit")
    ray = recipe("unit-ray")
    assert "-m ray $(RAY_TESTS)" in ray
    assert "-n " not in ray  # alone: no xdist workers
    test = recipe("test")
    # after the parallel run and after mypy, which runs beside it
    assert test.index("unit;") < test.index("wait $$typing") < test.index("unit-ray;")


def test_every_ray_test_is_where_the_ray_phase_looks() -> None:
    (folders,) = re.findall(r"^RAY_TESTS := (.+)$", MAKEFILE, flags=re.MULTILINE)
    marked = ray_marked()
    assert Path("tests/sweep/test_execute.py") in marked
    for path in marked:
        assert any(path.is_relative_to(folder) for folder in folders.split()), path


def test_the_checks_see_a_ray_test_elsewhere_and_a_phase_that_is_gone(tmp_path: Path) -> None:
    (tmp_path / "tests" / "web").mkdir(parents=True)
    (tmp_path / "tests" / "web" / "test_new.py").write_text("pytestmark = pytest.mark.ray\n")
    (tmp_path / "tests" / "web" / "test_other.py").write_text("pytestmark = pytest.mark.slow\n")
    assert ray_marked(tmp_path) == {Path("tests/web/test_new.py")}
    without = MAKEFILE.replace("\nunit-ray:", "\nray-later:")
    with pytest.raises(LookupError, match="no target unit-ray"):
        recipe("unit-ray", without)
