"""The cells a kernel has run, graded as one notebook, in its box: what ``%ttt_check`` shows
and what a teacher's hidden test cell asserts (:func:`assert_passes`, the nbgrader recipe).

The cells are the kernel's own record of its input (IPython's raw history), in the order
they ran, each named by its input number (``In [5]``); the grader's own cells (every line of
which loads the extension, calls ``%ttt_check``, imports :mod:`tttlab.jupyter` or calls
:func:`check_cells` or :func:`assert_passes`; comments aside) are left out, and in a cell of
the student's the magic's own line is left out as every magic is. The modules of the
kernel's working folder that the cells import or ``%run`` come along, as for a notebook
file. One grading serves every check of the same cells, while the folder's modules are as
they were: a hidden test cell per check grades once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tttlab.errors import TttlabError
from tttlab.usercode.grading import check_history as grade_cells
from tttlab.usercode.report import CheckReport

__all__ = ["assert_passes", "cells_run", "check_cells"]

#: A line of the grader's own (a cell of only such lines, and comments, is the grader's).
_OURS = re.compile(
    r"\s*(#.*|(\w+\s*=\s*)?%ttt_check\b.*|%(re)?load_ext\s+tttlab\s*"
    r"|(from\s+tttlab\.jupyter\s+)?import\s+(tttlab\.jupyter|assert_passes|check_cells).*"
    r"|(tttlab\.jupyter\.)?(assert_passes|check_cells)\s*\(.*)?"
)
#: The gradings kept, by what they graded (the last few: a notebook's test cells share one).
_KEPT: dict[Any, CheckReport] = {}


def cells_run(shell: Any) -> list[tuple[int, str]]:
    """The student's cells a kernel ran so far: (input number, source), in order."""
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if not isinstance(history, list):
        raise TttlabError("this kernel keeps no history of its input: nothing to grade")
    return [
        (number, source)
        for number, source in enumerate(history)
        if number and isinstance(source, str) and not _ours(source)
    ]


def _ours(source: str) -> bool:
    """Whether a cell is the grader's own (or empty): every line of it is."""
    return all(_OURS.fullmatch(line) for line in source.splitlines())


def _state(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """What the folder's modules are now (each ``.py`` file's and notebook's name, time and
    size, sub-folders included but hidden ones, ``__pycache__``, ``site-packages`` and
    ``node_modules``; at most 2,000 files looked at): a kept grading is used again only
    while they are the same."""
    found: list[tuple[str, int, int]] = []
    looked = 0
    for top, folders, files in os.walk(folder):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in _SKIPPED)
        for name in sorted(files):
            looked += 1
            if looked > 2000:
                return tuple(found)
            if name.endswith((".py", ".ipynb")) and not name.startswith("."):
                path = Path(top) / name
                try:
                    stat = path.stat()
                except OSError:
                    continue
                found.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(found)


#: Folders no module of the submission is in (and that may be large).
_SKIPPED = frozenset({"__pycache__", "site-packages", "node_modules"})


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency
        return None
    return get_ipython()


def check_cells(
    *,
    shell: Any = None,
    folder: str | Path | None = None,
    exercise: str | None = None,
    only: Iterable[str] = (),
    names: Mapping[str, str] | Iterable[str] = (),
    time_limit: float = 120.0,
    call_seconds: float = 5.0,
    memory_mb: int = 1024,
    isolation: str = "auto",
) -> CheckReport:
    """Grade the cells this kernel has run so far (``shell``: IPython's, by default the
    running one) as ``ttt check`` grades a notebook, with the modules of ``folder`` (the
    kernel's working folder) that they import; the options are ``tttlab.check``'s."""
    shell = shell if shell is not None else _shell()
    if shell is None:
        raise TttlabError("check_cells grades the cells a notebook ran: call it in a notebook")
    cells = cells_run(shell)
    if not cells:
        raise TttlabError("no cell has run yet: run your cells, then check them")
    where = Path(folder if folder is not None else os.getcwd())
    given = tuple(sorted(names.items())) if isinstance(names, Mapping) else tuple(names)
    options = dict(
        exercise=exercise,
        only=tuple(only),
        names=given,
        time_limit=time_limit,
        call_seconds=call_seconds,
        memory_mb=memory_mb,
        isolation=isolation,
    )
    key = (tuple(cells), str(where), tuple(options.items()), _state(where))
    if key not in _KEPT:
        report = grade_cells(
            cells,
            where,
            exercise=exercise,
            only=tuple(only),
            names=dict(names) if isinstance(names, Mapping) else tuple(names),
            time_limit=time_limit,
            call_seconds=call_seconds,
            memory_mb=memory_mb,
            isolation=isolation,
        )
        if report.status == "error":  # the grader's failure: the next asking tries again
            return report
        while len(_KEPT) >= 4:
            del _KEPT[next(iter(_KEPT))]
        _KEPT[key] = report
    return _KEPT[key]


def assert_passes(check: str, **options: Any) -> None:
    """Grade the cells run so far (:func:`check_cells`, every check at once) and fail with
    the first counterexample as the message unless ``check`` passes: one hidden test cell
    per check in nbgrader's autograding. It returns nothing, so that the cell has no
    output (nbgrader would read one as a partial score)."""
    report = check_cells(**options)
    result = report.checks.get(check)
    if result is None:
        why = "; ".join(report.problems) or f"{report.exercise or 'the code'} has no such check"
        raise AssertionError(f"{check} was not checked: {why}")
    if not result.ok:
        said = [report.check_text(check), *(f"problem: {p}" for p in report.problems)]
        raise AssertionError("\n".join(said))
