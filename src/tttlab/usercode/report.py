"""What ``ttt check`` reports: per function pass or fail, counts and the first
counterexample; the JSON schema (documented in docs/reference/json.md) and the summary table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["TABLE_COLUMNS", "CheckReport", "Example", "FunctionCheck"]


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
        return {
            "board": self.board,
            "call": self.call,
            "expected": self.expected,
            "got": self.got,
            "repro": self.repro,
        }


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

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
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

    @property
    def ok(self) -> bool:
        """Every check passed on every board (full coverage) and nothing went wrong."""
        return (
            not self.problems and self.coverage == 1.0 and all(c.ok for c in self.checks.values())
        )

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def as_json(self) -> dict[str, Any]:
        seconds = self.minimax_seconds_empty_board
        return {
            "file": self.file,
            "exercise": self.exercise,
            "ok": self.ok,
            "coverage": round(self.coverage, 6),
            "minimax_seconds_empty_board": None if seconds is None else round(seconds, 3),
            "checks": {name: check.as_json() for name, check in self.checks.items()},
            "problems": list(self.problems),
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        """A few lines of text: each check's result and the first counterexample's line."""
        lines = [f"{self.file}: {'pass' if self.ok else 'FAIL'} (coverage {self.coverage:.0%})"]
        lines += [f"  problem: {p}" for p in self.problems]
        width = max((len(n) for n in self.checks), default=0)
        for name, check in self.checks.items():
            verdict = "pass" if check.ok else f"FAIL, {check.wrong:,} wrong"
            lines.append(f"  {name:<{width}}  {verdict} ({check.checked:,} checked)")
            if check.example is not None:
                lines.append(f"  {'':<{width}}  {check.example.repro}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def row(self) -> dict[str, Any]:
        """The summary table's row (``TABLE_COLUMNS``)."""
        failed = [n for n, c in self.checks.items() if not c.ok]
        seconds = self.minimax_seconds_empty_board
        return {
            "file": self.file,
            "ok": self.ok,
            "passed": sum(c.ok for c in self.checks.values()),
            "checks": len(self.checks),
            "failed": " ".join(failed),
            "coverage": round(self.coverage, 4),
            "minimax_s": "" if seconds is None else round(seconds, 3),
            "problem": self.problems[0] if self.problems else "",
        }


#: The columns of the summary table and of ``--csv``.
TABLE_COLUMNS = ("file", "ok", "passed", "checks", "failed", "coverage", "minimax_s", "problem")
