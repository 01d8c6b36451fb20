"""What ``ttt check`` reports: per function pass or fail, counts and the first
counterexample; the JSON schema (documented in docs/reference/json.md) and the summary table."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "EXIT_CODES",
    "TABLE_COLUMNS",
    "VERDICTS",
    "CheckReport",
    "Example",
    "FunctionCheck",
    "finite_json",
    "verdict_markup",
    "worst_exit_code",
]


@dataclass(frozen=True)
class Example:
    """A counterexample: the board (``X.O/.X./..O``), the call, what was expected, what
    came back, a line that reproduces it, and the board drawn."""

    board: str
    call: str
    expected: str
    got: str
    repro: str
    drawing: str = ""

    def as_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "drawing"}  # JSON draws no boards


@dataclass(frozen=True)
class FunctionCheck:
    """One function's result: ``checked`` of ``planned`` calls made, ``wrong`` of them
    wrong (for ``result``, ``extra["invalid_checked"]`` invalid actions tried as well)."""

    name: str
    ok: bool
    checked: int
    planned: int
    wrong: int
    example: Example | None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """``pass``, ``fail`` (a wrong answer) or ``incomplete`` (not every call was made,
        and none made was wrong)."""
        if self.ok:
            return "pass"
        return "fail" if self.wrong or self.checked == self.planned else "incomplete"

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "status": self.status,
            "checked": self.checked,
            "wrong": self.wrong,
            **self.extra,
            "example": None if self.example is None else self.example.as_json(),
        }


@dataclass(frozen=True)
class CheckReport:
    """The grade of one file (or folder).

    Examples:
        ```python
        import tttlab

        report = tttlab.check("tictactoe.py", only=["result"])
        report.ok, report.coverage               # (False, 1.0)
        report.checks["result"].wrong            # how many calls were wrong
        report.to_dict()                         # what `ttt check --json` prints
        ```
    """

    file: str
    exercise: str
    checks: dict[str, FunctionCheck]
    coverage: float
    minimax_seconds_empty_board: float | None = None
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    seconds: float = 0.0
    #: ``pass``, ``fail``, ``incomplete`` or ``error`` (:data:`EXIT_CODES`).
    status: str = "pass"
    #: How the code was contained (``bubblewrap``, or why it was not).
    isolation: str = ""
    #: The files graded, relative to the submission's folder.
    graded: tuple[str, ...] = ()
    #: Where each of the exercise's names was found (``initialV_x``:
    #: ``state_util.initialV_x``), for a folder or when names are mapped.
    found: dict[str, str] = field(default_factory=dict)
    #: ``--name``: the exercise's names mapped to the student's.
    renamed: dict[str, str] = field(default_factory=dict)
    #: The time limits that applied, and the reference speed they were set by
    #: (:class:`tttlab.usercode.speed.Limits`).
    limits: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in EXIT_CODES:
            raise ValueError(f"status must be one of {', '.join(EXIT_CODES)}")
        if not 0.0 <= self.coverage <= 1.0:  # nan too
            raise ValueError(f"coverage must be a number from 0 to 1, got {self.coverage!r}")
        # A time that is no number (nan, an infinity) is no time: strict JSON has no such
        # numbers, and neither have the platforms' files.
        seconds = self.minimax_seconds_empty_board
        if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
            object.__setattr__(self, "minimax_seconds_empty_board", None)
        if not (math.isfinite(self.seconds) and self.seconds >= 0):
            object.__setattr__(self, "seconds", 0.0)
        if self.status == "pass" and (
            self.problems or self.coverage != 1.0 or not all(c.ok for c in self.checks.values())
        ):
            raise ValueError("a report with a problem, a failed check or coverage < 1 is no pass")

    @property
    def ok(self) -> bool:
        """Every check passed on every board (full coverage) and nothing went wrong."""
        return self.status == "pass"

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def as_json(self) -> dict[str, Any]:
        seconds = self.minimax_seconds_empty_board
        data = {
            "file": self.file,
            "exercise": self.exercise,
            "ok": self.ok,
            "status": self.status,
            "coverage": round(self.coverage, 6),
            "minimax_seconds_empty_board": None if seconds is None else round(seconds, 3),
            "checks": {name: check.as_json() for name, check in self.checks.items()},
            "problems": list(self.problems),
            "notes": list(self.notes),
            "graded": list(self.graded),
            "found": dict(self.found),
            "renamed": dict(self.renamed),
            "isolation": self.isolation,
            "limits": dict(self.limits),
        }
        strict: dict[str, Any] = finite_json(data)  # a check's extra numbers too
        return strict

    def summary(self, markup: bool = False) -> str:
        """The report for people, as ``ttt check FILE`` prints it: the verdict, each
        check's result, then each first counterexample drawn, with a line that reproduces
        it. ``markup`` adds rich's colours (and escapes what the files wrote)."""
        escape: Callable[[str], str] = str
        if markup:
            from rich.markup import escape as rich_escape

            escape = rich_escape

        def verdict(status: str) -> str:
            word = VERDICTS[status]
            return f"[{_COLOURS[status]}]{word}[/]" if markup else word

        passed = sum(c.ok for c in self.checks.values())
        coverage = (
            "every board checked"
            if self.coverage == 1.0
            else f"coverage {self.coverage:.1%} of the planned calls"
        )
        seconds = self.minimax_seconds_empty_board
        timing = "" if seconds is None else f"; minimax on the empty board: {seconds:.2f} s"
        problems = list(self.problems)
        if self.checks or not problems:
            ungraded = "; not everything graded (see the notes)" * any(
                n.startswith("not graded: ") for n in self.notes
            )
            lines = [
                f"{escape(self.file)}: {verdict(self.status)}, {passed} of {len(self.checks)} "
                f"checks pass ({coverage}{timing}){ungraded}"
            ]
        else:  # nothing was checked: the problem is the verdict (never "0 of 0 checks pass")
            lines = [f"{escape(self.file)}: {verdict(self.status)}: {escape(problems.pop(0))}"]
        if "+" in self.exercise:
            lines.append(f"  shapes: {' and '.join(self.exercise.split('+'))}, each graded")
        if len(self.graded) > 1 or (self.graded and Path(self.file).name != self.graded[0]):
            lines.append(f"  graded: {escape(', '.join(self.graded))}")
        if self.found:
            named = ", ".join(f"{ours}: {at}" for ours, at in self.found.items())
            lines.append(f"  found: {escape(named)}")
        problem = "[red]problem:[/]" if markup else "problem:"
        lines += [f"  {problem} {escape(p)}" for p in problems]
        width = max((len(name) for name in self.checks), default=0)
        lines += [_check_line(n, c, width, verdict) for n, c in self.checks.items()]
        lines += [f"  note: {escape(note)}" for note in self.notes]
        for name, check in self.checks.items():
            lines += _example_lines(name, check, escape, markup)
        return "\n".join(lines)

    def check_text(self, name: str) -> str:
        """One check as the report says it, in plain text: its line, then its first
        counterexample drawn (what the graders' formats show per test)."""
        check = self.checks.get(name)
        if check is None:
            return "not run: " + ("; ".join(self.problems) or self.status)
        line = _check_line(name, check, len(name), VERDICTS.__getitem__).strip()
        return "\n".join([line, *_example_lines(name, check, str, False)]).rstrip()

    def __str__(self) -> str:
        return self.summary()

    def row(self) -> dict[str, Any]:
        """The summary table's row (``TABLE_COLUMNS``)."""
        failed = [n for n, c in self.checks.items() if c.status == "fail"]
        seconds = self.minimax_seconds_empty_board
        return {
            "file": self.file,
            "ok": self.ok,
            "status": self.status,
            "passed": sum(c.ok for c in self.checks.values()),
            "checks": len(self.checks),
            "failed": " ".join(failed),
            "coverage": round(self.coverage, 4),
            "minimax_s": "" if seconds is None else round(seconds, 3),
            "problem": self.problems[0] if self.problems else "",
            "renamed": " ".join(f"{ours}={theirs}" for ours, theirs in self.renamed.items()),
        }


#: The columns of the summary table and of ``--csv``.
TABLE_COLUMNS = (
    "file",
    "ok",
    "status",
    "passed",
    "checks",
    "failed",
    "coverage",
    "minimax_s",
    "problem",
    "renamed",
)

#: Each status, and the exit code of ``ttt check`` when it is the worst of a run's
#: (worst first: fail, error, incomplete, pass).
EXIT_CODES = {"pass": 0, "fail": 1, "incomplete": 3, "error": 4}
#: How the table and the text say each status, and its colour.
VERDICTS = {"pass": "pass", "fail": "FAIL", "incomplete": "incomplete", "error": "ERROR"}
_COLOURS = {"pass": "green", "fail": "red", "incomplete": "yellow", "error": "red"}


def _check_line(name: str, check: FunctionCheck, width: int, verdict: Callable[[str], str]) -> str:
    more = ""
    if "invalid_checked" in check.extra:
        more = f" (+{check.extra['invalid_checked']:,} invalid actions)"
    if check.checked < check.planned:
        more += f" of {check.planned:,}"
    wrong = f", {check.wrong:,} wrong" if check.wrong else ""
    mark = verdict(check.status)
    return f"  {name:<{width}}  {mark} {check.checked:>7,} checked{more}{wrong}"


def _example_lines(
    name: str, check: FunctionCheck, escape: Callable[[str], str], markup: bool
) -> list[str]:
    example = check.example
    if example is None:
        return []
    title = f"[bold]{name}[/]" if markup else name
    lines = [f"\n{title}: first counterexample (earliest in the game)"]
    if example.drawing:
        lines += ["    " + line for line in example.drawing.splitlines()]
    lines.append(f"  call:      {escape(example.call)}")
    lines.append(f"  expected:  {escape(example.expected)}")
    lines.append(f"  got:       {escape(example.got)}")
    lines.append(f"  reproduce: {escape(example.repro)}")
    return lines


def finite_json(value: Any) -> Any:
    """``value`` (made of JSON's types) with each number that is not finite (nan, an
    infinity) as None: strict JSON has no such numbers (``json.dumps`` would write
    ``NaN``)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite_json(item) for item in value]
    return value


def verdict_markup(status: str) -> str:
    """A status as rich markup, coloured."""
    return f"[{_COLOURS[status]}]{VERDICTS[status]}[/]"


def worst_exit_code(reports: list[CheckReport]) -> int:
    """The exit code of a run over ``reports``: its worst status's."""
    for status in ("fail", "error", "incomplete"):
        if any(r.status == status for r in reports):
            return EXIT_CODES[status]
    return 0
