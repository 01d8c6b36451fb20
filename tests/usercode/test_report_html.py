"""A report as HTML for a notebook (:mod:`tttlab.usercode.report_html`): the verdict, the
problems, each check's row, the notes, each first counterexample with its board drawn and
the line that reproduces it; whatever the student's code said is shown as text, never as
markup."""

from __future__ import annotations

from html.parser import HTMLParser

from tttlab.usercode.report import CheckReport, Example, FunctionCheck
from tttlab.usercode.report_html import report_html

HOSTILE = "<script>alert('x')</script></div>\"'"


def _report() -> CheckReport:
    example = Example(
        board="X../OX./.OX",
        call="agent.update(env)",
        expected="the backward sweep",
        got=f"raised ValueError: {HOSTILE}",
        repro=f"agent.update(env) # {HOSTILE}",
    )
    checks = {
        "update": FunctionCheck("update", False, 60, 60, 60, example),
        "take_action": FunctionCheck("take_action", True, 273, 273, 0, None),
    }
    return CheckReport(
        file="td.ipynb",
        exercise="td-agent",
        checks=checks,
        coverage=1.0,
        problems=(f"does not import: {HOSTILE}",),
        notes=("td.ipynb: read as a module of its 3 code cells",),
        status="fail",
    )


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_report_reads_as_html_with_the_students_words_as_text() -> None:
    page = report_html(_report())
    parsed = _Tags()
    parsed.feed(page)
    assert "script" not in parsed.tags
    text = "".join(parsed.text)
    assert f"raised ValueError: {HOSTILE}" in text  # shown, word for word
    assert f"problem: does not import: {HOSTILE}" in text
    assert text.startswith("td.ipynb: FAIL, 1 of 2 checks pass (every board checked)")
    assert parsed.tags.count("tr") == 3  # the heading and a row a check
    assert parsed.tags.count("figure") == 1  # update's counterexample alone
    assert parsed.tags.count("svg") == 1  # its board, drawn
    assert "note: td.ipynb: read as a module of its 3 code cells" in text


def test_a_counterexample_without_a_board_draws_none() -> None:
    report = _report()
    update = report.checks["update"]
    assert update.example is not None
    plain = Example("", "R[0, :]", "rewards", "wrong", "after the module has run: R[0, :]")
    checks = {"update": FunctionCheck("update", False, 1, 1, 1, plain)}
    page = report_html(CheckReport("m.py", "mdp", checks, 1.0, status="fail"))
    assert "<svg" not in page
    assert "after the module has run: R[0, :]" in page


def test_a_report_with_nothing_checked_is_headed_by_its_problem() -> None:
    problem = "defines none of the exercises (cs50, course); --exercise forces one"
    report = CheckReport("a.py", "", {}, 0.0, problems=(problem,), status="fail")
    html = report_html(report)
    assert f"FAIL</b>: {problem}</p>" in html
    assert "0 of 0" not in html
    assert "<li>problem:" not in html
