"""A submission as the grader reads it: the student's files, each notebook read as the module
it is (:mod:`.notebooks`), and a file graded alone brought with the modules beside it that it
imports, as Python finds them when it runs the file (``from helpers import *`` in ``main.py``
needs ``helpers.py``).

Where either applies, the submission is staged: copied into a private folder where each
notebook ``work.ipynb`` is ``work.py``. The grader then reads and boxes the staged copy as it
would a folder of ``.py`` files, and :meth:`Staged.told` turns what its report says back into
the student's terms: ``work.ipynb cell 7, line 3`` where the grader saw ``work.py line 12``,
the student's paths where it saw the copy's.
"""

from __future__ import annotations

import ast
import contextlib
import re
import shutil
import tempfile
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from tttlab.limits import BOX_COPY_BYTES
from tttlab.usercode import box
from tttlab.usercode.names import module_of, python_files
from tttlab.usercode.notebooks import (
    Converted,
    NotebookError,
    Places,
    code_cells,
    convert,
    read_notebook,
)
from tttlab.usercode.report import CheckReport, Example, FunctionCheck

__all__ = [
    "HISTORY",
    "NOTEBOOK",
    "NotebookError",
    "Staged",
    "code_files",
    "staged",
    "staged_history",
]

#: A notebook's suffix.
NOTEBOOK = ".ipynb"
#: What a report calls the cells a kernel ran (``%ttt_check``).
HISTORY = "the cells run so far"
#: The module a kernel's cells are staged as.
_CELLS = "cells_run_so_far"


def code_files(path: Path) -> list[Path]:
    """The submission's code: its ``.py`` files and notebooks (the file itself, or those
    under the folder, as :func:`~tttlab.usercode.names.python_files` finds them)."""
    if not path.is_dir():
        return [path]
    found = python_files(path)
    for file in sorted(path.rglob("*" + NOTEBOOK)):
        parts = file.relative_to(path).parts
        if any(p.startswith(".") or p in ("__pycache__", "site-packages") for p in parts):
            continue
        if file.is_file() and not file.is_symlink():
            found.append(file)
    return sorted(found)


@dataclass
class Staged:
    """The submission the grader reads (``path``: a file or a folder), and how to tell its
    report in the student's terms. ``root`` is the folder to copy into the box when
    ``path`` is a file that brings modules beside it (None: the file alone, or a folder)."""

    original: Path
    path: Path
    root: Path | None = None
    notes: list[str] = field(default_factory=list)
    #: Each notebook, by the staged module's file (``work.py``): its own name (empty for a
    #: kernel's cells, named by their input numbers alone) and places.
    notebooks: dict[str, tuple[str, Places]] = field(default_factory=dict)
    #: The staged folder, as the grader's texts name it (None: nothing was staged), and
    #: the student's folder it stands for.
    copy: Path | None = None
    folder: Path | None = None
    #: The report's ``file`` (None: the original path).
    shown: str | None = None
    #: The modules of the student's folder brought along (a kernel's cells).
    brought: list[Path] = field(default_factory=list)

    def said(self, text: str) -> str:
        """``text`` with the staged copy's paths and the notebooks' lines in the
        student's terms."""
        if self.copy is not None:
            folder = self.folder or (
                self.original if self.original.is_dir() else self.original.parent
            )
            text = text.replace(str(self.copy), str(folder))
        # Longest first: no staged name is replaced inside another.
        by_length = sorted(self.notebooks.items(), key=lambda item: -len(item[0]))
        for staged_name, (name, places) in by_length:
            where = re.compile(rf"(?<![\w.-]){re.escape(staged_name)},? lines? (\d+)(?:-(\d+))?")

            def placed(match: re.Match[str], name: str = name, places: Places = places) -> str:
                span = places.span(int(match[1]), int(match[2]) if match[2] else None)
                return " ".join(w for w in (name, span) if w) if span or name else match[0]

            text = where.sub(placed, text)
            own = (name or HISTORY).replace("\\", "\\\\")  # a replacement: its backslashes kept
            text = re.sub(rf"(?<![\w.-]){re.escape(staged_name)}(?![\w])", own, text)
        return text

    def told(self, report: CheckReport) -> CheckReport:
        """``report`` in the student's terms, with the staging's notes."""
        if self.copy is None and not self.notes:
            return report
        said = self.said
        checks = {name: _check_said(check, said) for name, check in report.checks.items()}
        notes = tuple(dict.fromkeys((*(said(n) for n in report.notes), *self.notes)))
        return replace(
            report,
            file=self.shown or str(self.original),
            checks=checks,
            problems=tuple(said(p) for p in report.problems),
            notes=notes,
            graded=tuple(said(g) for g in report.graded),
        )


def _check_said(check: FunctionCheck, said: Callable[[str], str]) -> FunctionCheck:
    example = check.example
    if example is not None:
        example = Example(
            board=example.board,
            call=said(example.call),
            expected=said(example.expected),
            got=said(example.got),
            repro=said(example.repro),
            drawing=example.drawing,
        )
    extra = {k: said(v) if isinstance(v, str) else v for k, v in check.extra.items()}
    return replace(check, example=example, extra=extra)


@contextlib.contextmanager
def staged(path: Path, others: Collection[Path] = ()) -> Iterator[Staged]:
    """The submission at ``path``, staged where it holds notebooks or is a file that
    imports modules beside it (never one of ``others``: a classmate's file or folder graded
    in the same run, nor a module of a classmate's name); the staged copy is removed
    afterwards. A notebook that cannot be read is a :class:`NotebookError` when it is the
    submission, a note when it is one file of a folder."""
    folder = path if path.is_dir() else path.parent
    files = code_files(path)
    notebooks = [f for f in files if f.suffix == NOTEBOOK]
    companions: list[Path] = []
    cache: dict[Path, Converted] = {}
    if not path.is_dir():
        companions = _companions(path, folder, [path, *others], cache)
    if not notebooks and not companions:
        yield Staged(path, path)
        return
    with tempfile.TemporaryDirectory(prefix="ttt-staged-") as temporary:
        copy = Path(temporary) / "submission"
        copy.mkdir()
        result = Staged(path, path, copy=copy)
        if path.is_dir():  # the folder's files, its notebooks as modules (not their outputs)
            box.private_copy(path, copy, leave_out=(NOTEBOOK,))
            for notebook in notebooks:
                _stage_notebook(notebook, folder, copy, result, cache, alone=False)
            result.path = copy
        else:
            if path.suffix == NOTEBOOK:
                _stage_notebook(path, folder, copy, result, cache, alone=True)
            else:
                _copy(path, folder, copy, 0)
            _bring(companions, folder, copy, result, cache)
            if companions:
                shown = ", ".join(str(c.relative_to(folder)) for c in companions)
                result.notes.append(f"graded with the modules beside it that it imports: {shown}")
            relative = path.relative_to(folder)
            staged_as = staged_module(relative) if path.suffix == NOTEBOOK else relative
            result.path = copy / staged_as
            result.root = copy
        yield result


@contextlib.contextmanager
def staged_history(cells: list[tuple[int, str]], folder: Path) -> Iterator[Staged]:
    """A kernel's cells (each its input number and source, in the order they ran) staged as
    one notebook of ``folder``, with the modules of ``folder`` they import or ``%run``;
    the report names its places ``In [5], line 3``."""
    converted = convert(cells, HISTORY, partial_run(folder, folder), label="In")
    with tempfile.TemporaryDirectory(prefix="ttt-staged-") as temporary:
        copy = Path(temporary) / "submission"
        copy.mkdir()
        module = copy / f"{_CELLS}.py"
        module.write_text(converted.source, encoding="utf-8")
        result = Staged(folder / HISTORY, module, copy, copy=copy, folder=folder, shown=HISTORY)
        result.notebooks[module.name] = ("", converted.places)
        cache: dict[Path, Converted] = {}
        companions = _companions(module, folder, [module], cache)
        _bring(companions, folder, copy, result, cache)
        result.brought = companions
        result.notes.append(_summary(HISTORY, converted).replace("code cells", "cells"))
        if companions:
            shown = ", ".join(str(c.relative_to(folder)) for c in companions)
            result.notes.append(f"graded with the modules beside them that they import: {shown}")
        yield result


def _bring(
    companions: list[Path], folder: Path, copy: Path, into: Staged, cache: dict[Path, Converted]
) -> None:
    """Stage the modules a file brings (at most the box's copy of them)."""
    size = 0
    for file in companions:
        if file.suffix == NOTEBOOK:
            _stage_notebook(file, folder, copy, into, cache, alone=False)
        else:
            size = _copy(file, folder, copy, size)


def _copy(file: Path, folder: Path, copy: Path, size: int) -> int:
    """Copy ``file`` into the staged ``copy``; the bytes copied so far, past
    :data:`~tttlab.limits.BOX_COPY_BYTES` a :class:`~tttlab.usercode.box.TooLarge`."""
    size += file.stat().st_size
    if size > BOX_COPY_BYTES:
        raise box.TooLarge(f"the modules it imports hold more than {BOX_COPY_BYTES // 2**20} MB")
    target = copy / file.relative_to(folder)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(file, target)
    return size


def _stage_notebook(
    notebook: Path,
    folder: Path,
    copy: Path,
    into: Staged,
    cache: dict[Path, Converted],
    alone: bool,
) -> None:
    """Write ``notebook`` as its module into the staged ``copy``, with its notes; a
    notebook of a folder beside a ``.py`` file of the same name (its exported script)
    leaves the script graded."""
    relative = notebook.relative_to(folder)
    script = relative.with_suffix(".py")
    if not alone and (folder / script).exists():
        into.notes.append(f"{relative} left out: {script} is the same module, and is graded")
        return
    module = staged_module(relative)
    if module != script and (folder / module).exists():
        into.notes.append(f"{relative} left out: its module's name is {module}'s")
        return
    try:
        converted = _converted(notebook, folder, cache)
    except NotebookError as error:
        if alone:
            raise
        into.notes.append(f"{error}: left out")
        return
    target = copy / module
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(converted.source, encoding="utf-8")
    into.notebooks[str(module)] = (str(relative), converted.places)
    into.notes.append(_summary(str(relative), converted))


def _converted(notebook: Path, folder: Path, cache: dict[Path, Converted]) -> Converted:
    """``notebook`` as its module (read once, however many times it is asked for)."""
    if notebook not in cache:
        cells = code_cells(read_notebook(notebook), notebook.name)
        cache[notebook] = convert(cells, notebook.name, partial_run(notebook.parent, folder))
    return cache[notebook]


def partial_run(here: Path, folder: Path) -> Callable[[str], str | None]:
    """What ``%run FILE`` in a notebook of ``here`` brings in: the module of a ``.py`` or
    ``.ipynb`` file of the submission's ``folder`` (None: not one of its files)."""

    def module(target: str) -> str | None:
        try:
            file = (here / target).resolve()
            relative = file.relative_to(folder.resolve())
            if file.suffix not in (".py", NOTEBOOK) or not file.is_file():
                return None
        except (OSError, ValueError, RuntimeError):  # no such file, a name too long, a loop
            return None
        return module_of(staged_module(relative) if file.suffix == NOTEBOOK else relative)

    def run(target: str) -> str | None:  # IPython's %run tries FILE, then FILE.py
        return module(target) or (None if target.endswith(".py") else module(f"{target}.py"))

    return run


def staged_module(relative: Path) -> Path:
    """The module file a notebook is staged as: its name made a module's where it is not one
    (``Assignment 2.1.ipynb`` is ``Assignment_2_1.py``: Python would read the dot as a
    package's)."""
    stem = relative.stem if relative.stem.isidentifier() else re.sub(r"\W", "_", relative.stem)
    if not stem.isidentifier():
        stem = f"_{stem}"
    return relative.with_name(f"{stem}.py")


def _summary(name: str, converted: Converted) -> str:
    """One note for a notebook: how it was read, and what was left out or adapted."""
    said = f"{name}: read as a module of its {converted.cells} code cells"
    if not converted.notes:
        return said
    shown = "; ".join(converted.notes[:6])
    more = f"; and {len(converted.notes) - 6} more" if len(converted.notes) > 6 else ""
    return f"{said}; {shown}{more}"


def _companions(
    path: Path, folder: Path, others: list[Path], cache: dict[Path, Converted]
) -> list[Path]:
    """The modules beside ``path`` that it imports (and that they import, in turn): ``.py``
    files, notebooks and packages of ``folder``. Never one of ``others`` (``path`` itself
    among them), a file inside one, nor a module of the same name as one (``bob.py``, the
    script exported from a classmate's ``bob.ipynb``)."""
    shut = [_resolved(p) for p in others]
    names = {p.stem if p.suffix in (".py", NOTEBOOK) else p.name for p in others}
    found: list[Path] = []
    todo = [path]
    seen = {_resolved(path)}
    while todo:
        file = todo.pop()
        for name in sorted(_imported(file, folder, cache) - names):
            for candidate in _module_files(folder, name):
                resolved = _resolved(candidate)
                if resolved in seen or any(o == resolved or o in resolved.parents for o in shut):
                    continue
                seen.add(resolved)
                found.append(candidate)
                todo.append(candidate)
    return sorted(found)


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _module_files(folder: Path, name: str) -> list[Path]:
    """The files of the top-level module ``name`` in ``folder``, as Python's finder takes
    them: the package ``name/`` (with its ``__init__.py``), else ``name.py``, else the
    notebook ``name.ipynb``, else the namespace package ``name/``; nothing for a link, or
    a name no file system takes."""
    try:
        package = folder / name
        if package.is_dir() and not package.is_symlink() and (package / "__init__.py").is_file():
            return code_files(package)
        for suffix in (".py", NOTEBOOK):
            file = folder / f"{name}{suffix}"
            if file.is_file() and not file.is_symlink():
                return [file]
        if package.is_dir() and not package.is_symlink():
            return code_files(package)
    except (OSError, ValueError):
        pass
    return []


def _imported(file: Path, folder: Path, cache: dict[Path, Converted]) -> set[str]:
    """The top-level names of the modules ``file`` imports, anywhere in it (and those a
    notebook's ``%run`` lines bring in)."""
    try:
        if file.suffix == NOTEBOOK:
            text = _converted(file, folder, cache).source
        else:
            text = file.read_text(errors="replace")
        tree = ast.parse(text)
    except (NotebookError, OSError, SyntaxError, ValueError, MemoryError, RecursionError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "_ttt_run"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names.add(node.args[0].value.split(".")[0])
    return {n for n in names if n.strip() and len(n) < 256 and "/" not in n and "\0" not in n}
