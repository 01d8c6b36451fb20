"""A student's Jupyter notebook read as the module it is: its code cells in order, with
IPython's own syntax handled the way IPython handles it, or left out with a note that names
the cell and the line. Nothing here runs the student's code, and no shell command is ever
run: the module is graded in its box as a ``.py`` file is.

The notebook is read with nbformat (any version it reads, as JupyterLab, VS Code and Colab
save them: outputs, widgets and metadata are passed over). A cell that is plain Python is
taken as it is; any other is turned into Python by IPython's own input transformers (the
``%magic``, ``!command``, ``name?`` and ``>>>`` prompts they know), and then:

- ``%run FILE`` (``.py`` or ``.ipynb``, a file of the submission) brings in every name of
  that file, as IPython's ``%run`` does (those that start with ``_`` too); ``%run`` of a
  file that is not there is left out;
- ``%time STATEMENT`` (``x = %time f()`` too) and the bodies of ``%%time``, ``%%capture``
  and ``%%prun`` cells are the code they time or capture;
- ``%pylab`` brings in ``pylab``'s names, ``np`` and ``plt``, as IPython does;
- every other magic (``%matplotlib``, ``%timeit``, ``%load_ext``...), every shell command
  (``!pip install ...``, ``%%bash``), help (``?``, ``??``), and cell magics that run
  elsewhere (``%%timeit``, ``%%writefile``, ``%%html``...) are left out, each named in a
  note;
- a cell that is not Python even so (a syntax error in a scratch cell) is left out, named
  with its error, as IPython would fail that cell alone.

Every line of the module keeps its place in the notebook (:class:`Places`), so that a
report names ``cell 7, line 3`` where the grader saw ``work.py line 12``; the module's
cells are run one by one where the module is run whole (:meth:`Places.cells`), as a kernel
runs them: an error stops its own cell only.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tttlab.errors import TttlabError
from tttlab.usercode.boxside.schema import cut
from tttlab.usercode.ipysyntax import (
    BODY_MAGICS,
    cell_magic_why,
    handled,
    lines_of,
    magic,
    nested_magic,
    parsed,
    shown,
    syntax_error,
    transformed,
)

__all__ = [
    "CODE_CHARS",
    "NOTEBOOK_BYTES",
    "Converted",
    "NotebookError",
    "Places",
    "code_cells",
    "convert",
    "parse_notebook",
    "read_notebook",
]

#: The largest notebook read, in bytes (outputs included: a notebook of plots is big).
NOTEBOOK_BYTES = 64 * 2**20
#: The most code a notebook's cells may hold, in characters, and the most cells.
CODE_CHARS, MOST_CELLS = 4 * 2**20, 20_000
#: The lines the grader puts before a notebook's code, where its cells need them: what
#: ``%run`` does (every name of the file but the dunders), and IPython's ``display``.
_RUN_DEF = (
    "def _ttt_run(name, names):  # %run: every name of the file, as IPython's %run gives",
    "    import importlib",
    "    module = importlib.import_module(name)",
    "    kept = {k: v for k, v in vars(module).items() if not k.startswith('__')}",
    "    names.update(kept)",
)
_DISPLAY_DEF = ("def display(*objects, **options): print(*objects)",)


class NotebookError(TttlabError):
    """A notebook that cannot be read as one (the student's file, in one line)."""


@dataclass(frozen=True)
class Places:
    """Where each line of the module came from: ``lines[i]`` is the (cell, line in the
    cell) of the module's line ``i + 1``, or None for a line of the grader's own; cells
    are named by ``label`` (``cell 7``, or ``In [5]`` for a kernel's history)."""

    lines: tuple[tuple[int, int] | None, ...]
    label: str = "cell"

    def cell(self, number: int) -> str:
        return f"In [{number}]" if self.label == "In" else f"cell {number}"

    def of(self, line: int) -> tuple[int, int] | None:
        return self.lines[line - 1] if 1 <= line <= len(self.lines) else None

    def span(self, first: int, last: int | None = None) -> str | None:
        """``cell 7, line 3`` or ``cell 7, lines 3-5`` (``cells 7-8`` across cells) for
        the module's lines ``first`` to ``last``; None where they are not the notebook's."""
        start, end = self.of(first), self.of(last if last is not None else first)
        if start is None:
            return None
        if end is None or end == start:
            return f"{self.cell(start[0])}, line {start[1]}"
        if end[0] == start[0]:
            return f"{self.cell(start[0])}, lines {start[1]}-{end[1]}"
        plural = "In" if self.label == "In" else "cells"
        return f"{plural} {start[0]}-{end[0]}"

    def cells(self) -> list[list[int]]:
        """The module's lines of each cell, as [first, last] (the grader's own lines, at
        the top, are one more): the parts a kernel would run one at a time."""
        found: list[list[int]] = []
        current: object = object()
        for line, place in enumerate(self.lines, 1):
            cell = None if place is None else place[0]
            if found and cell == current:
                found[-1][1] = line
            else:
                found.append([line, line])
                current = cell
        return found


@dataclass
class Converted:
    """A notebook as a module: its ``source``, each line's place, and the notes on what
    was left out or adapted."""

    source: str
    places: Places
    notes: list[str] = field(default_factory=list)
    cells: int = 0
    runs: bool = False
    #: The cells left out as not Python, each ``cell 3, line 59 (expected ':')``.
    unparsed: list[str] = field(default_factory=list)


def read_notebook(path: Path) -> Any:
    """The notebook at ``path`` (nbformat version 4), or a :class:`NotebookError` saying
    in one line why it is not one. A file that cannot be read is an :class:`OSError`: the
    machine's, not the student's."""
    if path.stat().st_size > NOTEBOOK_BYTES:
        raise NotebookError(
            f"{path.name} is larger than {NOTEBOOK_BYTES // 2**20} MB "
            "(clear its outputs: Edit, Clear Outputs of All Cells)"
        )
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise NotebookError(f"{path.name} is not a notebook: it is not UTF-8 text") from None
    return parse_notebook(text, path.name)


def _refused(name: str, error: BaseException) -> NotebookError:
    reason = cut(" ".join(str(error)[:10_000].split()), 120) or type(error).__name__
    return NotebookError(f"{name} is not a notebook nbformat can read: {_clean(reason)}")


def parse_notebook(text: str, name: str) -> Any:
    """The notebook in ``text`` (nbformat version 4), or a :class:`NotebookError`. What
    nbformat needs and lacks (an import that fails, memory) is the grader's, and raised as
    it is."""
    import warnings

    nbformat = _nbformat()
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise _refused(name, error) from None
    if isinstance(data, dict) and isinstance(data.get("cells"), list):
        for cell in data["cells"]:  # what is not graded is not read
            if isinstance(cell, dict):
                cell.pop("attachments", None)
                if isinstance(cell.get("outputs"), list):
                    cell["outputs"] = []
    reads: Callable[..., Any] = nbformat.reads  # untyped in nbformat
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a missing cell id: nbformat mends it
            notebook = reads(json.dumps(data), as_version=4)
    except (ImportError, MemoryError, OSError):
        raise
    except Exception as error:  # nbformat's own refusals: a ValidationError, a reader's
        raise _refused(name, error) from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise NotebookError(f"{name} is not a notebook nbformat can read: it has no cells")
    language = _language(notebook.get("metadata"))
    if language.lower() not in ("python", "python3", "ipython", "ipython3", ""):
        raise NotebookError(f"{name} is a notebook in {language[:40]}, not Python")
    return notebook


def _nbformat() -> Any:
    """nbformat, imported without ``rfc3987_syntax``: where Jupyter's own packages installed
    it, jsonschema (which nbformat imports to validate) imports it too, and it compiles 38
    grammars as it does, 3.2 s here, for the IRI formats that no notebook's schema uses."""
    import sys

    blocked = "rfc3987_syntax" not in sys.modules
    if blocked:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # an ImportError
    try:
        import nbformat
    finally:
        if blocked and sys.modules.get("rfc3987_syntax", 0) is None:
            del sys.modules["rfc3987_syntax"]
    return nbformat


def _clean(text: str) -> str:
    """``text`` without lone surrogates (a notebook's JSON may escape one: no file, no
    terminal and no page can show it), each a replacement character."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _language(metadata: Any) -> str:
    if not isinstance(metadata, dict):
        return ""
    for key, inner in (("kernelspec", "language"), ("language_info", "name")):
        found = metadata.get(key)
        if isinstance(found, dict) and isinstance(found.get(inner), str):
            return _clean(" ".join(str(found[inner]).split()))
    return ""


def code_cells(notebook: Any, name: str = "the notebook") -> list[tuple[int, str]]:
    """Each code cell's number (counted from the top, every cell included) and source;
    a :class:`NotebookError` past :data:`MOST_CELLS` cells or :data:`CODE_CHARS` of code."""
    found = []
    cells = notebook.get("cells", [])
    if len(cells) > MOST_CELLS:
        raise NotebookError(f"{name} has more than {MOST_CELLS:,} cells")
    total = 0
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if isinstance(source, str):
            total += len(source)
            found.append((number, _clean(source)))
    if total > CODE_CHARS:
        raise NotebookError(f"{name} holds more than {CODE_CHARS // 2**20} MB of code")
    return found


def convert(
    cells: list[tuple[int, str]],
    name: str,
    module_of_run: Callable[[str], str | None],
    label: str = "cell",
) -> Converted:
    """The module made of ``cells`` (each its number and its source, in the order they
    run); ``module_of_run`` gives the module a ``%run`` argument names in the submission
    (None: not there). ``name`` is the notebook's file name, for the notes."""
    places: list[tuple[int, int] | None] = []
    lines: list[str] = []
    out = Converted("", Places(()), cells=len(cells))
    where = Places((), label)
    for number, text in cells:
        for line_text, place in _cell(number, text, where, module_of_run, out):
            lines.append(line_text)
            places.append(place)
    ours = [*(_RUN_DEF if out.runs else ()), *(_DISPLAY_DEF if _uses_display(lines) else ())]
    out.source = "\n".join([*ours, *lines]) + "\n"
    out.places = Places((*(None for _ in ours), *places), label)
    return out


def _cell(
    number: int,
    text: str,
    where: Places,
    module_of_run: Callable[[str], str | None],
    out: Converted,
) -> list[tuple[str, tuple[int, int] | None]]:
    """One cell's lines, each with its place, its magics handled (notes in ``out``)."""
    raw = lines_of(text)
    filled = [k for k, line in enumerate(raw) if line.strip()]
    if not filled:
        return []
    cell = where.cell(number)
    offset = 0
    first = raw[filled[0]].lstrip()
    if first.startswith("%%"):  # IPython passes over blank lines before a cell magic
        words = first[2:].split(maxsplit=1)
        kind = words[0] if words else ""
        if kind not in BODY_MAGICS:
            out.notes.append(f"{cell} (%%{kind}): {cell_magic_why(kind)}")
            return []
        how = BODY_MAGICS[kind]
        out.notes.append(f"{cell} (%%{kind}): its code read as the cell's, not {how}")
        offset = filled[0] + 1
        raw = raw[offset:]
    tree: ast.Module | None
    try:
        tree = ast.parse("\n".join(raw))
        code, mapped = raw, list(range(1, len(raw) + 1))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        code, mapped, tree = transformed(raw)
        if tree is None:
            line, why = syntax_error("\n".join(raw))
            at = f", line {line + offset}" if line else ""
            out.notes.append(f"{cell}{at}: not Python ({why}): the cell left out")
            out.unparsed.append(f"{cell}{at} ({why})")
            return []
    kept = list(code)
    for node in tree.body:
        found = magic(node)
        if found is None:
            continue
        start, end = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        at = f"{cell}, line {mapped[start] + offset}"
        replacement, note = handled(found, node, module_of_run)
        out.runs |= replacement.startswith("_ttt_run(")
        if note:
            out.notes.append(f"{at} ({shown(found)}): {note}")
        kept[start] = " " * node.col_offset + replacement if replacement else ""
        for k in range(start + 1, end + 1):
            kept[k] = ""
    unrun = _uncompiled("\n".join(kept))  # parsed, yet no module's code: a top-level return
    if unrun is not None:
        line, why = unrun
        at = f", line {mapped[line - 1] + offset}" if 0 < line <= len(mapped) else ""
        out.notes.append(f"{cell}{at}: cannot run in a module ({why}): the cell left out")
        out.unparsed.append(f"{cell}{at} ({why})")
        return []
    nested = nested_magic(tree)
    if nested is not None:
        out.notes.append(
            f"{cell}, line {mapped[nested - 1] + offset}: an IPython command below the top "
            "level: it fails when that code runs"
        )
    return [(line, (number, mapped[k] + offset)) for k, line in enumerate(kept)]


def _uncompiled(code: str) -> tuple[int, str] | None:
    """The line and the error where ``code`` parses but does not compile (``return`` or
    ``await`` at the top level, ``break`` outside a loop), else None."""
    try:
        compile(code, "<cell>", "exec", dont_inherit=True)
    except SyntaxError as error:
        return error.lineno or 0, (error.msg or "invalid syntax")[:80]
    except (ValueError, MemoryError, RecursionError) as error:
        return 0, type(error).__name__
    return None


def _uses_display(lines: list[str]) -> bool:
    """Whether the code reads ``display`` without defining or importing it."""
    text = "\n".join(lines)
    if "display" not in text:
        return False
    tree = parsed(text)
    if tree is None:
        return False
    read = defined = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "display":
            read |= isinstance(node.ctx, ast.Load)
            defined |= isinstance(node.ctx, ast.Store)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == "display":
            defined = True
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined |= any((a.asname or a.name) == "display" for a in node.names)
    return read and not defined
