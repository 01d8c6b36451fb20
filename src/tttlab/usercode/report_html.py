"""A ``ttt check`` report as HTML, for a notebook (``%ttt_check``, and a report's own
``_repr_html_``): the verdict, the problems, a table of the checks, the notes, and each first
counterexample with its board drawn and the line that reproduces it. Everything the student's
code said is escaped: it is shown as text, never as markup."""

from __future__ import annotations

from html import escape

from tttlab.game import Position
from tttlab.game.draw import board_svg
from tttlab.usercode.report import VERDICTS, CheckReport

__all__ = ["report_html"]

_COLOURS = {"pass": "#15803d", "fail": "#b91c1c", "incomplete": "#b45309", "error": "#7e22ce"}


def _board(board: str) -> str:
    """The board drawn, or nothing when the counterexample has none (an MDP's table)."""
    if not board:
        return ""
    try:
        return board_svg(Position.from_string(board), cell=32)
    except Exception:  # a board of no 3x3 game: its text is in the call
        return ""


def report_html(report: CheckReport) -> str:
    """``report`` as one HTML fragment."""
    passed = sum(c.ok for c in report.checks.values())
    colour = _COLOURS.get(report.status, "#000000")
    verdict = escape(VERDICTS.get(report.status, report.status))
    coverage = (
        "every board checked"
        if report.coverage == 1.0
        else f"coverage {report.coverage:.1%} of the planned calls"
    )
    problems = list(report.problems)
    said = f"{passed} of {len(report.checks)} checks pass ({escape(coverage)})"
    if not report.checks and problems:  # nothing was checked: the problem is the verdict
        said = escape(problems.pop(0))
    separator = ", " if report.checks or not report.problems else ": "
    parts = [
        '<div class="ttt-check">',
        f"<p><b>{escape(report.file)}</b>: <b style='color:{colour}'>{verdict}</b>"
        f"{separator}{said}</p>",
    ]
    if problems:
        items = "".join(f"<li>problem: {escape(p)}</li>" for p in problems)
        parts.append(f"<ul>{items}</ul>")
    if report.checks:
        parts.append("<table><tr><th>check</th><th>result</th><th>checked</th><th>wrong</th></tr>")
        for name, check in report.checks.items():
            shade = _COLOURS.get(check.status, "#000000")
            parts.append(
                f"<tr><td>{escape(name)}</td><td style='color:{shade}'>{escape(check.status)}"
                f"</td><td>{check.checked:,}</td><td>{check.wrong:,}</td></tr>"
            )
        parts.append("</table>")
    if report.notes:
        items = "".join(f"<li>note: {escape(n)}</li>" for n in report.notes)
        parts.append(f"<ul>{items}</ul>")
    for name, check in report.checks.items():
        example = check.example
        if example is None:
            continue
        rows = [("call", example.call), ("expected", example.expected), ("got", example.got)]
        terms = "".join(f"<dt>{t}</dt><dd>{escape(v)}</dd>" for t, v in rows if v)
        terms += f"<dt>reproduce</dt><dd><code>{escape(example.repro)}</code></dd>"
        parts.append(
            f"<figure data-check='{escape(name, quote=True)}'>"
            f"<figcaption>{escape(name)}: first counterexample</figcaption>"
            f"{_board(example.board)}<dl>{terms}</dl></figure>"
        )
    parts.append("</div>")
    return "".join(parts)
