"""``ttt check``: grade the tic-tac-toe exercise on every reachable board.

One file (or folder) prints each function's result and its first counterexample; several
print one summary table (``--csv`` writes it too). ``--json`` prints one object per file,
one per line. Exit 0 when every check passes, 1 when one fails, 3 when one did not finish,
4 when the grader could not grade one (its row says why; the others are still graded), 2 on a
usage error.
"""

from __future__ import annotations

import csv
import io
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO

import click
from rich.markup import escape
from rich.table import Table

from tttlab._signals import raise_interrupts
from tttlab.atomic import write_atomically
from tttlab.cli.common import (
    CommandError,
    FiniteFloat,
    err,
    file_option,
    json_option,
    out,
    print_json,
    shown_option,
    writable_target,
)
from tttlab.errors import TttlabError
from tttlab.usercode import box
from tttlab.usercode.boxside.schema import cut
from tttlab.usercode.exercises import EXERCISES
from tttlab.usercode.formats import (
    FORMATS,
    VISIBILITY,
    gradescope,
    junit,
    parse_points,
    prairielearn,
)
from tttlab.usercode.grading import ISOLATION, check_path
from tttlab.usercode.report import TABLE_COLUMNS, CheckReport, verdict_markup, worst_exit_code
from tttlab.usercode.sandbox import ABANDON
from tttlab.usercode.submission import NOTEBOOK, code_files


def _table(reports: Sequence[CheckReport]) -> None:
    table = Table(title=f"ttt check: {len(reports)} files")
    table.add_column("file", overflow="fold", min_width=12)
    for column in ("result", "passed", "failed", "coverage", "minimax s"):
        table.add_column(column)
    table.add_column("problem", overflow="fold")
    for report in reports:
        row = report.row()
        table.add_row(
            escape(row["file"]),
            verdict_markup(row["status"]),
            f"{row['passed']}/{row['checks']}",
            row["failed"],
            f"{row['coverage']:.0%}",
            str(row["minimax_s"]),
            escape(row["problem"]),
        )
    out.print(table)


def _in_order(
    paths: Sequence[Path], grade: Callable[[Path], CheckReport], at_once: int
) -> Iterator[CheckReport]:
    """Each path's report, in the order of ``paths``, graded ``at_once`` at a time (threads:
    the work is in each box's processes). A Ctrl-C ends every running box at once."""
    if at_once <= 1:
        yield from map(grade, paths)
        return
    pool = ThreadPoolExecutor(max_workers=at_once, thread_name_prefix="ttt-check")
    futures = [pool.submit(grade, path) for path in paths]
    try:
        for future in futures:
            yield future.result()
    except BaseException:
        ABANDON.set()  # each running box ends within a tenth of a second
        raise
    finally:
        for future in futures:
            future.cancel()
        pool.shutdown(wait=True)
        ABANDON.clear()


def _csv_bytes(reports: Sequence[CheckReport]) -> bytes:
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=TABLE_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for report in reports:
        writer.writerow(report.row())
    # a file name that is not UTF-8 (its bytes kept as lone surrogates) is written escaped
    return text.getvalue().encode(errors="backslashreplace")


def _ungraded(path: Path, why: str) -> CheckReport:
    """The row of a file that the grader failed to grade (``error``: not the student's
    failure), so that the class's report is still written."""
    problem = f"could not be graded: {why}"
    return CheckReport(str(path), "", {}, 0.0, problems=(problem,), status="error")


def _one_line(error: BaseException) -> str:
    """``Type: message``, the message's first line, cut to 200 characters."""
    lines = str(error).strip().splitlines()
    message = lines[0].strip() if lines else ""
    if len(message) > 200:
        message = cut(message, 200)
    elif len(lines) > 1:
        message += " …"
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _nothing_in(path: Path) -> bool:
    """Whether the submission holds no .py file or notebook (the student's: nothing to
    grade)."""
    try:
        return not code_files(path)
    except OSError:
        return False


@click.command("check")
@click.argument(
    "paths",
    nargs=-1,
    required=True,
    type=click.Path(exists=True, path_type=Path),
)
@shown_option(
    "--time-limit",
    FiniteFloat(1, 3600),
    120.0,
    "Seconds for each file at the reference speed (grown on a machine measured slower, at "
    "most 4 times); what was checked by then is reported as coverage.",
)
@shown_option(
    "--call-limit",
    FiniteFloat(0.1, 600),
    5.0,
    "Seconds of CPU time for one call of any function but minimax, at the reference speed "
    "(grown as --time-limit is; an infinite loop stops there; a call that waits rather "
    "than computes gets ten times as long on the clock).",
)
@shown_option(
    "--memory-limit",
    click.IntRange(128, 65536),
    1024,
    "Megabytes of memory for the process that runs the student's code.",
)
@click.option(
    "--exercise",
    type=click.Choice(sorted(EXERCISES)),
    default=None,
    help="The exercise's shape (default: detected from what the files define).",
)
@click.option(
    "--only",
    metavar="CHECK",
    multiple=True,
    help="Run only this check, e.g. minimax or result (repeat for more).",
)
@click.option(
    "--name",
    "names",
    metavar="EXERCISE_NAME=STUDENT_NAME",
    multiple=True,
    help="The student's name for one of the exercise's: a function, a class, or an "
    "attribute such as the board (--name initialV_x=init_x_vals --name board=tiles).",
)
@click.option(
    "--isolation",
    type=click.Choice(ISOLATION),
    default="auto",
    show_default=True,
    help="auto: each file in a box where one can be made (bubblewrap), else graded with "
    "what is left, said on stderr; required: refuse without a box; off: no box.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(1, 64),
    default=None,
    help="Submissions graded at once, each in its own box with its own limits (default: "
    "the number of cores). The report keeps the order of the arguments.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="text (the table), json (as --json), csv (the table as CSV), or what a grading "
    "platform reads: gradescope (results.json), junit (XML), prairielearn (results.json).",
)
@click.option(
    "--points",
    metavar="CHECK=N",
    multiple=True,
    help="Points for a check in gradescope and prairielearn (repeatable; default 1 each).",
)
@click.option(
    "--visibility",
    type=click.Choice(VISIBILITY),
    default="visible",
    show_default=True,
    help="Who sees the results on Gradescope.",
)
@file_option("--csv", "csv_path", "Also write the summary table to this CSV file.")
@json_option
def check_command(
    paths: tuple[Path, ...],
    time_limit: float,
    call_limit: float,
    memory_limit: int,
    exercise: str | None,
    only: tuple[str, ...],
    names: tuple[str, ...],
    isolation: str,
    jobs: int | None,
    fmt: str | None,
    points: tuple[str, ...],
    visibility: str,
    csv_path: Path | None,
    as_json: bool,
) -> int:
    """Grade tic-tac-toe exercises on every reachable board: CS50 AI's tictactoe.py, the
    course's Environment and TD(0) Agent, the Q-learning text's Board and Agent, the MDP
    text's P and R (detected; a folder holding several has each graded).

    Each PATH is a .py file, a notebook (.ipynb) or a folder of a student's files. Each
    runs in a box of its own (a private copy of its files, no network, its own processes,
    limits on time, memory, files and processes); what it reports is checked, never
    believed.
    """
    raise_interrupts()  # a Ctrl-C ends each box and removes its cgroup
    if as_json and fmt not in (None, "json"):
        raise CommandError(f"--json and --format {fmt} are two formats: choose one")
    fmt = "json" if as_json else (fmt or "text")
    try:
        worth = parse_points(points)
    except TttlabError as error:
        raise CommandError(str(error)) from None
    if csv_path is not None:
        writable_target(csv_path, "'--csv'")
    for path in paths:
        if not path.is_dir() and path.suffix not in (".py", NOTEBOOK):
            raise CommandError(
                f"{path} is not a Python file (.py), a notebook (.ipynb) or a folder"
            )

    def grade(path: Path) -> CheckReport:
        try:
            return check_path(
                path,
                exercise=exercise,
                time_limit=time_limit,
                memory_mb=memory_limit,
                call_seconds=call_limit,
                only=only,
                isolation=isolation,
                names=names,
                others=paths,
            )
        except TttlabError as error:
            # one file read by a person: one line; a platform's format: a grade of 0, and why
            alone = len(paths) == 1 and fmt in ("text", "json", "csv")
            if not alone and _nothing_in(path):  # the student's failure, not the grader's
                problem = f"no .py file or notebook in {path}"
                return CheckReport(str(path), "", {}, 0.0, problems=(problem,), status="fail")
            if alone or isolation == "required":
                raise CommandError(str(error)) from None
            return _ungraded(path, str(error))
        except Exception as error:  # ttt check's own failure: the file's row, not the class's
            return _ungraded(path, f"internal error in ttt check ({_one_line(error)})")

    at_once = min(jobs or len(os.sched_getaffinity(0)), len(paths))
    reports: list[CheckReport] = []
    what = f"{len(paths)} submissions, {at_once} at a time" if len(paths) > 1 else str(paths[0])
    with err.status(f"Checking {escape(what)}…") as status:
        for report in _in_order(paths, grade, at_once):
            if not reports and isolation == "auto" and not box.isolation().boxed:
                err.print(f"ttt check: {escape(box.isolation().describe)}", highlight=False)
            reports.append(report)
            status.update(f"Checking {escape(what)}… ({len(reports)} done)")
            if fmt == "json":
                print_json(report.as_json())
    if fmt == "text":
        if len(paths) == 1:
            out.print(reports[0].summary(markup=True))
        else:
            _table(reports)
    elif fmt == "csv":
        sys.stdout.buffer.write(_csv_bytes(reports))
    elif fmt == "gradescope":
        print_json(gradescope(reports, worth, visibility))
    elif fmt == "prairielearn":
        print_json(prairielearn(reports, worth))
    elif fmt == "junit":
        sys.stdout.buffer.write(junit(reports))
    sys.stdout.flush()
    if csv_path is not None:
        data = _csv_bytes(reports)

        def write(f: BinaryIO) -> None:
            f.write(data)

        write_atomically(csv_path, write)
    return worst_exit_code(reports)
