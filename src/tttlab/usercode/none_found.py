"""Why a submission defines none of the exercises, in its problem's one line: where a
notebook's cell that is not Python was left out, with everything it defines, that is the
reason, named by its cell and line; otherwise the exercises that were looked for."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tttlab.usercode.notebooks import NotebookError, code_cells, convert, read_notebook

__all__ = ["none_found", "unparsed_cells"]

#: The most notebooks of a folder read again for the reason.
NOTEBOOKS = 20


def unparsed_cells(submission: Path) -> list[str]:
    """The code cells of the notebooks at ``submission`` (one, or those of a folder) that
    are not Python, each ``td.ipynb cell 3, line 59 (expected ':')``."""
    if submission.is_dir():
        files = [
            f
            for f in sorted(submission.rglob("*.ipynb"))
            if not any(p.startswith(".") for p in f.relative_to(submission).parts)
        ][:NOTEBOOKS]
    else:
        files = [submission] if submission.suffix == ".ipynb" else []
    found: list[str] = []
    for file in files:
        name = file.relative_to(submission).as_posix() if submission.is_dir() else file.name
        try:
            cells = code_cells(read_notebook(file), name)
        except (NotebookError, OSError):
            continue
        found += [f"{name} {cell}" for cell in convert(cells, name, lambda _: None).unparsed]
    return found


def none_found(submission: Path, exercises: Iterable[str]) -> str:
    """The problem of a submission in which none of ``exercises`` was found."""
    unparsed = unparsed_cells(submission)
    if len(unparsed) == 1:
        return (
            f"defines none of the exercises: {unparsed[0]} is not Python, so the cell was "
            "left out with all it defines"
        )
    if unparsed:
        shown = ", ".join(unparsed[:-1]) + f" and {unparsed[-1]}"
        return (
            f"defines none of the exercises: {shown} are not Python, so those cells were "
            "left out with all they define"
        )
    return f"defines none of the exercises ({', '.join(exercises)}); --exercise forces one"
