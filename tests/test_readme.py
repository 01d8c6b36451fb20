"""The documentation is the manual: the Python and the commands of the README and of every
page of the site (docs/, in the site's order) run and succeed."""

from __future__ import annotations

import functools
import re
import shlex
from pathlib import Path

import pytest

from tests.cli.helpers import ttt

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()


def _pages() -> list[Path]:
    """The README, then the site's pages in the order of its navigation (mkdocs.yml)."""
    import yaml

    def walk(entry: object) -> list[str]:
        if isinstance(entry, str):
            return [entry]
        if isinstance(entry, list):
            return [path for item in entry for path in walk(item)]
        if isinstance(entry, dict):
            return [path for value in entry.values() for path in walk(value)]
        return []

    class Loader(yaml.SafeLoader):  # mkdocs.yml's own tags (!relative ...) read as nothing
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    nav = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)["nav"]
    pages = [ROOT / "docs" / path for path in walk(nav) if path.endswith(".md")]
    return [ROOT / "README.md", *(page for page in pages if page.exists())]


PAGES = _pages()
TEXT = "\n".join(page.read_text() for page in PAGES)


def _blocks(language: str, text: str = TEXT) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


@functools.cache
def _command_blocks() -> list[list[list[str]]]:
    """The ``ttt`` commands of each console block, in order (``ttt serve`` left out: it runs
    until stopped; tests/web starts and checks a real one)."""
    blocks = []
    for block in _blocks("console"):
        found = []
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("ttt ") and not line.startswith("ttt serve"):
                found.append(shlex.split(line)[1:])
        if found:
            blocks.append(found)
    return blocks


_WRITES = ("--out", "--curve", "--log", "--plot", "--export", "--export-dense", "--checkpoint")


def _writes(args: list[str]) -> set[str]:
    written = {args[i + 1] for i, a in enumerate(args[:-1]) if a in _WRITES}
    if "--checkpoint-every" in args and "--out" in args:
        out = Path(args[args.index("--out") + 1])
        written.add(str(out.with_name(out.stem + ".ckpt.npz")))
    return written


def _reads(args: list[str]) -> set[str]:
    files = {a.split(":")[0] for a in args if a.split(":")[0].endswith((".npz", ".csv"))}
    return files - _writes(args)


def _earlier(index: int) -> list[list[str]]:
    """The commands of the blocks before block ``index``, in order."""
    return [args for block in _command_blocks()[:index] for args in block]


def _prerequisites(index: int) -> list[list[str]]:
    """The commands of earlier blocks that write the files the commands of block ``index``
    read (so each block runs alone, in a folder of its own)."""
    block = _own(index)
    needed: list[list[str]] = []
    wanted = set().union(*(_reads(args) for args in block))
    wanted -= set().union(*(_writes(args) for args in block))
    for args in reversed(_earlier(index)):
        if _writes(args) & wanted:
            needed.insert(0, args)
            wanted = (wanted - _writes(args)) | _reads(args)
    assert not wanted, f"the docs read {wanted} before writing them"
    return needed


def test_readme_has_the_two_setup_commands_first() -> None:
    first = _blocks("console", README)[0]
    assert "make demo" in first
    assert "make test" in first


def test_the_pages_are_read() -> None:
    """Every Markdown page under docs/ is in the site's navigation, so its examples run here."""
    pages = set(PAGES)
    assert {p for p in (ROOT / "docs").rglob("*.md") if "hooks" not in p.parts} <= pages
    assert len(PAGES) > 20


def test_readme_python_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the examples write files
    for block in dict.fromkeys(_blocks("python")):  # Get started repeats the README's
        exec(compile(block, "docs", "exec"), {})
    assert capsys.readouterr().out


_BUDGETS = ("--episodes", "--checkpoint-every")


def _scaled(args: list[str]) -> list[str]:
    """A table learner's budget over 100,000 episodes cut tenfold, with its checkpoint period
    (its evaluation period is kept: the curve still has its first and last points). The test
    checks that the command runs as written; what the full budget reaches is pinned
    elsewhere (200,000 episodes in tests/cli, the long runs in benchmarks/)."""
    if args[:1] != ["train"] or "--episodes" not in args or args[1] in ("dqn", "alphazero"):
        return args
    if int(args[args.index("--episodes") + 1]) <= 100_000:
        return args
    return [str(int(a) // 10) if i and args[i - 1] in _BUDGETS else a for i, a in enumerate(args)]


def test_budgets_are_scaled_whole() -> None:
    long = ["train", "q", "--episodes", "300000", "--checkpoint-every", "100000"]
    assert _scaled([*long, "--eval-every", "100000"]) == [
        *["train", "q", "--episodes", "30000", "--checkpoint-every", "10000"],
        *["--eval-every", "100000"],
    ]
    assert _scaled(["train", "q", "--episodes", "100000"])[3] == "100000"
    assert _scaled(["train", "dqn", "--episodes", "204800"])[3] == "204800"


def _own(index: int) -> list[list[str]]:
    """Block ``index``'s commands that no earlier block has (the front page and Get started
    repeat the guides' commands: each runs once)."""
    earlier = _earlier(index)
    return [args for args in _command_blocks()[index] if args not in earlier]


#: The blocks with a command of their own.
_NEW = [i for i in range(len(_command_blocks())) if _own(i)]


@pytest.mark.parametrize("index", _NEW)
def test_readme_commands_succeed(index: int, tmp_path: Path) -> None:
    """Every `ttt` line of a console block of the README, in order, in a scratch folder,
    after the earlier lines that write the files it reads, with long table budgets scaled
    down (:func:`_scaled`). `ttt play` is interactive: it quits at the first prompt."""
    for args in _prerequisites(index) + _own(index):
        result = ttt(*_scaled(args), input="q\n", cwd=str(tmp_path), timeout=300)
        assert result.returncode == 0, (args, result.stderr)
        assert result.stdout, args


def test_the_readme_has_commands_in_many_blocks() -> None:
    blocks = _command_blocks()
    assert sum(len(block) for block in blocks) >= 10
    extra = [len(_prerequisites(i)) for i in range(len(blocks))]
    assert any(extra)  # e.g. `ttt eval td.npz` runs after the `ttt train` that writes it


def test_readme_mdp_explanation_comes_from_the_code() -> None:
    block = re.search(r"<!-- explain: ttt (.*?) -->\n```text\n(.*?)```", TEXT, flags=re.S)
    assert block is not None
    args = shlex.split(block.group(1))
    result = ttt(*args)
    assert result.returncode == 0
    assert result.stdout.strip() == block.group(2).strip()
