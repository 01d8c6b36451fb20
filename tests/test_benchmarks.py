"""benchmarks/ holds only what backs a figure in the README or the docs: each script is named
on the benchmarks page or in the README. experiments/ holds research runs: each says in the
first line of its docstring which guide section holds its result, and that guide names it."""

from __future__ import annotations

import ast
import importlib.util
import re
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS_DIR = ROOT / "benchmarks"
BENCHMARKS = sorted(BENCHMARKS_DIR.glob("*.py"))
EXPERIMENTS = sorted((ROOT / "experiments").glob("*.py"))
#: An experiment's first docstring line.
RESULT = re.compile(r"Result: (docs/[\w/.-]+\.md), section '(.+)'\.")


def unnamed_benchmarks(scripts: list[Path], pages: list[str]) -> list[str]:
    """The scripts whose file name none of ``pages`` mentions."""
    return [script.name for script in scripts if not any(script.name in page for page in pages)]


def result_problem(script: Path, root: Path = ROOT) -> str | None:
    """What is wrong with ``script``'s result line, or None: the first line of its docstring
    names a page under docs/ that exists, a heading of that page, and the page names the
    script."""
    docstring = ast.get_docstring(ast.parse(script.read_text())) or ""
    match = RESULT.fullmatch(docstring.split("\n", 1)[0])
    if match is None:
        return f"{script.name}: the docstring does not start with {RESULT.pattern!r}"
    page, section = root / match.group(1), match.group(2)
    if not page.is_file():
        return f"{script.name}: {match.group(1)} does not exist"
    text = page.read_text()
    if not re.search(rf"^#+ {re.escape(section)}$", text, flags=re.MULTILINE):
        return f"{script.name}: {match.group(1)} has no section {section!r}"
    if script.name not in text:
        return f"{script.name}: {match.group(1)} does not name it"
    return None


def test_there_are_benchmarks_and_experiments() -> None:
    assert len(BENCHMARKS) >= 10
    assert len(EXPERIMENTS) >= 5
    assert not {s.name for s in BENCHMARKS} & {s.name for s in EXPERIMENTS}


def test_every_benchmark_is_named_on_the_benchmarks_page_or_in_the_readme() -> None:
    pages = [(ROOT / "docs" / "benchmarks.md").read_text(), (ROOT / "README.md").read_text()]
    assert unnamed_benchmarks(BENCHMARKS, pages) == []


@pytest.mark.parametrize("script", EXPERIMENTS, ids=lambda path: path.name)
def test_every_experiment_names_the_guide_section_that_holds_its_result(script: Path) -> None:
    assert result_problem(script) is None


def test_the_checks_catch_an_unnamed_script(tmp_path: Path) -> None:
    """A script that no page names, or whose result line is missing or points nowhere."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("# Guide\n\n## Speed\n\n`old.py` ran here.\n")
    new = tmp_path / "new.py"
    new.write_text('"""A new benchmark."""\n')
    assert unnamed_benchmarks([new], ["`old.py` ran here"]) == ["new.py"]
    assert unnamed_benchmarks([new], ["`new.py` ran here"]) == []
    problems = {
        '"""A result nowhere."""': "does not start with",
        '"""Result: docs/gone.md, section \'Speed\'."""': "docs/gone.md does not exist",
        '"""Result: docs/guide.md, section \'Size\'."""': "has no section 'Size'",
        '"""Result: docs/guide.md, section \'Speed\'."""': "does not name it",
    }
    for docstring, problem in problems.items():
        new.write_text(docstring + "\n")
        assert problem in (result_problem(new, tmp_path) or ""), docstring
    old = tmp_path / "old.py"
    old.write_text('"""Result: docs/guide.md, section \'Speed\'.\n\nAn old run.\n"""\n')
    assert result_problem(old, tmp_path) is None


def test_the_reference_speed_is_episodes_over_the_cpu_seconds_of_train(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What make test prints first: ``train(episodes)`` timed whole, in CPU time (here a
    stand-in that computes for 0.1 s of CPU, then sleeps 0.3 s: 200 episodes at 2,000
    episodes/s at most, whatever the wall time)."""
    spec = importlib.util.spec_from_file_location(
        "reference_course", BENCHMARKS_DIR / "reference_course.py"
    )
    assert spec is not None
    assert spec.loader is not None
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    trained: list[int] = []

    def train(episodes: int) -> None:
        trained.append(episodes)
        started = time.process_time()
        while time.process_time() - started < 0.1:
            pass
        time.sleep(0.3)

    monkeypatch.setattr(reference, "train", train)
    reference.main(["--episodes", "200"])
    assert trained == [200]
    line = capsys.readouterr().out
    match = re.fullmatch(
        r"reference speed: ([\d,]+) episodes/s \(benchmarks/reference_course\.py: 200 "
        r"episodes in (\d+\.\d) s of CPU, (\d+\.\d) s of wall time\)\n",
        line,
    )
    assert match is not None, line
    rate, cpu, wall = int(match.group(1).replace(",", "")), *map(float, match.group(2, 3))
    assert 1_000 <= rate <= 2_000  # 0.1 s of CPU (not the 0.4 s of wall time), a bit more
    assert abs(200 / rate - cpu) <= 0.051  # the CPU time, to the printed tenth
    assert wall >= 0.4


def prints_the_reference_speed_first(script: Path) -> bool:
    """Whether ``script``'s ``main`` (where it has one) first prints the machine's reference
    speed (``reference_course.announce()``)."""
    tree = ast.parse(script.read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "main":
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            return bool(body) and ast.unparse(body[0]) == "reference_course.announce()"
    return True  # no main: a module the benchmarks import


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda path: path.name)
def test_every_benchmark_prints_the_reference_speed_beside_its_figures(script: Path) -> None:
    if script.name != "reference_course.py":
        assert prints_the_reference_speed_first(script)


def test_the_speed_check_catches_a_benchmark_without_it(tmp_path: Path) -> None:
    bare = tmp_path / "bench_bare.py"
    bare.write_text('def main():\n    """Times it."""\n    print(1)\n\n\nmain()\n')
    assert not prints_the_reference_speed_first(bare)
