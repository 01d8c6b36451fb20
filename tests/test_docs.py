"""The documentation site builds strictly, executing the lessons once, and what it says about
the code's output (JSON fields, the agent file's header) is what the code prints."""

from __future__ import annotations

import html
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.cli.helpers import ttt

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
LESSONS = sorted((ROOT / "notebooks").glob("[0-9]*.py"))

mkdocs = pytest.importorskip("mkdocs", reason="the docs extra is not installed")


def _fields(table: str) -> set[str]:
    """The backticked names in the first column of a Markdown table."""
    names: set[str] = set()
    for row in table.strip().splitlines()[2:]:
        names |= set(re.findall(r"`([^`]+)`", row.split("|")[1]))
    return names


def _tables(page: str, marker: str) -> list[tuple[str, list[set[str]]]]:
    """Each ``<!-- marker: ARGS -->`` of a page and the fields of each table after it, up
    to the next heading."""
    found = []
    lines = (DOCS / page).read_text().splitlines()
    for i, line in enumerate(lines):
        match = re.fullmatch(rf"<!-- {marker}: (.*) -->", line)
        if not match:
            continue
        tables: list[set[str]] = []
        j = i + 1
        while j < len(lines) and not lines[j].startswith("#"):
            if lines[j].startswith("|"):
                end = next(
                    (e for e in range(j, len(lines)) if not lines[e].startswith("|")), len(lines)
                )
                tables.append(_fields("\n".join(lines[j:end])))
                j = end
            j += 1
        found.append((match.group(1), tables))
    return found


def _documented(page: str, marker: str) -> list[tuple[str, set[str]]]:
    """Each ``<!-- marker: ARGS -->`` of a page and the fields of the first table after it."""
    return [(args, tables[0]) for args, tables in _tables(page, marker)]


JSON_SECTIONS = _documented("reference/json.md", "json")


def test_every_json_command_is_documented() -> None:
    commands = {shlex.split(args)[0] for args, _ in JSON_SECTIONS}
    src = ROOT / "src" / "tttlab" / "cli"
    with_json = {
        path.stem.removesuffix("_cmd")
        for path in src.glob("*_cmd.py")
        if "json_option" in path.read_text() or '"--json"' in path.read_text()
    }
    assert len(JSON_SECTIONS) >= 9
    assert with_json <= commands


@pytest.mark.parametrize(("args", "fields"), JSON_SECTIONS, ids=[a for a, _ in JSON_SECTIONS])
def test_json_reference_matches_the_output(
    args: str, fields: set[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference lists exactly the fields the command prints (a field added to the code
    and not to the page, or the other way round, fails here)."""
    from click.testing import CliRunner

    from tttlab.cli import cli

    argv = shlex.split(args)
    if argv[0] == "check":  # the corpus file, from the repository
        argv[1] = str(ROOT / argv[1])
    monkeypatch.chdir(tmp_path)
    if argv[0] == "verify":  # a certificate to check, written by the solver first
        solve = ["solve", "--board", "3x4", "--k", "3", "--engine", "search"]
        CliRunner().invoke(cli, [*solve, "--certificate", argv[1]], catch_exceptions=False)
    result = CliRunner().invoke(cli, argv, catch_exceptions=False)  # in process: no start-up
    assert result.exit_code in (0, 1), result.output
    output = json.loads(result.stdout.splitlines()[0])
    assert set(output) == fields
    if argv[0] == "eval":  # and each seat's fields, in the second table
        (seat_fields,) = {frozenset(seat) for seat in output.values()}
        assert seat_fields == dict(_tables("reference/json.md", "json"))[args][1]


def test_agent_file_header_matches_the_reference(tmp_path: Path) -> None:
    ((args, fields),) = _documented("reference/agent-file.md", "header")
    out = tmp_path / "agent.npz"
    assert ttt("train", args, "--episodes", "100", "--out", str(out)).returncode == 0
    with np.load(out, allow_pickle=False) as archive:
        header = json.loads(str(archive["header"]))
        members = set(archive.files)
    assert set(header) == fields
    assert members <= {"header", "ids", "V", "Q"}


def test_the_readme_is_a_front_page() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    for link in re.findall(r"\]\(((?:docs/|CHANGELOG)[^)#]*)", readme):
        assert (ROOT / link).exists(), link
    # two clicks: the front page links the guides for checking code, training and the lab
    for page in ("guides/check.md", "guides/learners.md", "guides/lab.md"):
        assert f"(docs/{page})" in readme
        assert f"({page})" in (DOCS / "index.md").read_text()


def test_the_lessons_are_text() -> None:
    jupytext = pytest.importorskip("jupytext")
    assert len(LESSONS) == 7
    for lesson in LESSONS:
        assert all(not cell.get("outputs") for cell in jupytext.read(lesson).cells)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``mkdocs build --strict`` from a scratch folder (so the lessons' cache starts empty and
    every lesson runs): broken links, missing references and a failing cell are errors."""
    where = tmp_path_factory.mktemp("docs")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "MPLBACKEND": "Agg"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
         "-d", str(where / "site")],
        cwd=where, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    # (not --quiet: mkdocs counts the warnings that strict mode refuses only as it logs them)
    assert not [line for line in result.stderr.splitlines() if line.startswith("WARNING")]
    return where / "site"


def test_the_lessons_ran_in_the_build(site: Path) -> None:
    for lesson in LESSONS:
        page = (site / "notebooks" / lesson.stem / "index.html").read_text()
        assert "jp-OutputArea-output" in page, lesson.name  # executed: outputs are shown
        assert "Traceback" not in page


def test_the_command_reference_has_every_option(site: Path) -> None:
    import click

    from tttlab.cli import every_command

    page = html.unescape((site / "reference" / "cli" / "index.html").read_text())
    assert "Sentinel" not in page  # click's "no default" is not shown as a default
    for name, command in every_command().items():
        assert f"ttt {name}" in page
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                assert param.opts[0] in page, (name, param.opts[0])


def test_the_http_reference_has_every_route(site: Path) -> None:
    from tttlab.web.app import create_app

    schema = create_app().openapi()
    page = html.unescape((site / "reference" / "http" / "index.html").read_text())
    for path, methods in schema["paths"].items():
        for method in methods:
            assert f"{method.upper()} {path}" in page
    assert json.loads((site / "openapi.json").read_text())["paths"].keys() == schema["paths"].keys()


def test_the_python_reference_has_every_public_name(site: Path) -> None:
    import tttlab

    page = (site / "reference" / "python" / "index.html").read_text()
    for name in tttlab.__all__:
        if name != "__version__":
            assert f'id="{tttlab._LAZY[name]}.{name}"' in page, name


def test_option_tables_come_from_the_declaration(site: Path) -> None:
    from tttlab.hyperparameters import for_learner

    page = html.unescape((site / "guides" / "networks" / "index.html").read_text())
    for learner in ("alphazero", "dqn", "ppo"):
        for hyperparameter in for_learner(learner):
            assert hyperparameter.help in page, (learner, hyperparameter.name)


#: The modules the Python reference documents, name by name (its ``<!-- api: ... -->``).
REFERENCE = re.findall(r"<!-- api: ([a-z0-9_.]+) -->", (DOCS / "reference/python.md").read_text())


def _public(module_name: str) -> list[tuple[str, object]]:
    """The functions and classes a module exports (constants and aliases have no docstring)."""
    import importlib
    import inspect
    import types

    module = importlib.import_module(module_name)
    found = []
    for name in module.__all__:
        obj = getattr(module, name)
        if isinstance(obj, (types.UnionType, types.GenericAlias)) or not (
            inspect.isclass(obj) or callable(obj)
        ):
            continue
        found.append((f"{module_name}.{name}", obj))
    return found


@pytest.mark.parametrize("module", REFERENCE)
def test_every_public_name_has_a_summary_and_an_example(module: str) -> None:
    import inspect

    assert len(REFERENCE) == 7
    for name, obj in _public(module):
        doc = inspect.getdoc(obj) or ""
        assert doc.strip(), f"{name} has no docstring"
        assert len(doc.splitlines()[0]) > 10, f"{name}: the first line is not a summary"
        assert "Example:" in doc or "Examples:" in doc or ">>>" in doc, f"{name} has no example"


def test_every_command_has_examples_that_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each example in ``ttt COMMAND --help`` (and the command reference) names the command
    and options that exist, with values they accept."""
    from tttlab.cli import EXAMPLES, every_command

    monkeypatch.chdir(tmp_path)  # the files the examples name
    (tmp_path / "tictactoe.py").write_text("")
    (tmp_path / "submissions").mkdir()
    (tmp_path / "submissions" / "*.py").write_text("")  # the shell's glob, as click sees it
    (tmp_path / "trained").mkdir()
    import click

    commands = every_command()
    assert set(EXAMPLES) == set(commands)
    for name, lines in EXAMPLES.items():
        command = commands[name]
        help_text = command.get_help(click.Context(command, info_name=f"ttt {name}"))
        assert lines
        for line in lines:
            words = shlex.split(line)
            assert words[:2] == ["ttt", name]
            command.make_context(line, words[2:])  # raises on a bad option or value
            assert line in help_text
