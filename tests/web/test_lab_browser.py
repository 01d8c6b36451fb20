"""The lab's five sections in a real headless Chromium against a real ``ttt serve``:
train and watch the exact chart, stop a job, inspect mistakes, compare agents, check an
exercise file (a hostile one too). Screenshots of each section go to artifacts/browser/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import ttt
from tests.web.conftest import ARTIFACTS, start_serve, stop_serve


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("lab")
    assert (
        ttt(
            "train", "q", "--episodes", "500", "--seed", "0", "--out", str(folder / "early.npz")
        ).returncode
        == 0
    )
    proc, url = start_serve(folder, "--max-episodes", "100000000")
    yield url, folder
    stop_serve(proc)


def _page(browser, url: str, tab: str):  # type: ignore[no-untyped-def]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 900, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}/#{tab}")
    page.wait_for_function("() => document.querySelectorAll('#agent option').length > 0")
    return page, errors


def _finish(page, errors: list[str], name: str) -> None:  # type: ignore[no-untyped-def]
    """A screenshot of the section for the README and the record; no script error."""
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    assert errors == []


def _train_done(page) -> str:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "() => /^(Done|Stopped)/.test(document.getElementById('train-status').textContent)",
        timeout=120_000,
    )
    return str(page.text_content("#train-status"))


def test_train_q_and_watch_the_chart_reach_optimal_play(lab, browser) -> None:  # type: ignore[no-untyped-def]
    url, folder = lab
    page, errors = _page(browser, url, "train")
    assert page.input_value("#train-episodes") == "20000"
    assert page.input_value("#hp-epsilon") == "0.1"  # ttt train q's defaults, filled in
    assert page.input_value("#hp-alpha") == "0.5"
    page.fill("#train-name", "q-page")
    page.click("#train-start")
    assert "saved q-page.npz" in _train_done(page)
    points = page.evaluate("() => window.lab.points")
    assert points[-1]["episode"] == 20_000
    assert points[-1]["X"]["optimal_share"] == 1.0
    assert points[-1]["O"]["optimal_share"] == 1.0
    # The chart holds the same points: episodes, then optimal share for X and O.
    data = page.evaluate("() => window.lab.chart.data")
    assert data[0] == [p["episode"] for p in points]
    assert data[1][-1] == 1.0
    assert data[2][-1] == 1.0
    assert "X: optimal share 1.000" in str(page.text_content("#train-latest"))
    assert (folder / "q-page.npz").is_file()
    # The finished agent is offered at once.
    assert page.locator("#agent option[value='q-page.npz']").count() == 1
    _finish(page, errors, "lab-train")


def test_stop_a_job_midway_and_play_its_agent(lab, browser) -> None:  # type: ignore[no-untyped-def]
    url, folder = lab
    page, errors = _page(browser, url, "train")
    page.select_option("#train-board", "3x4k3")
    page.fill("#train-episodes", "50000000")
    page.fill("#train-name", "midway")
    page.click("#train-start")
    page.wait_for_function(
        "() => /^Episode/.test(document.getElementById('train-status').textContent)",
        timeout=60_000,
    )
    assert "episodes/s" in str(page.text_content("#train-status"))
    page.click("#train-stop")
    status = _train_done(page)
    assert status.startswith("Stopped after")
    assert "saved midway.npz" in status
    assert (folder / "midway.npz").is_file()
    page.click("#tab-play")
    page.select_option("#size", "3x4k3")
    page.select_option("#agent", "midway.npz")
    page.click("#new")
    page.wait_for_function("() => /Your turn/.test(document.getElementById('status').textContent)")
    page.locator("#grid .cell").nth(5).click()
    page.wait_for_function(
        "() => document.querySelectorAll('#grid .cell.o').length === 1", timeout=20_000
    )
    assert page.text_content("#error") == ""
    assert errors == []


def test_inspect_an_early_agent_and_open_a_mistake(lab, browser) -> None:  # type: ignore[no-untyped-def]
    url, _ = lab
    page, errors = _page(browser, url, "inspect")
    page.select_option("#inspect-agent", "early.npz")
    page.select_option("#inspect-seat", "X")
    page.click("#inspect-run")
    page.wait_for_selector("#mistakes .mistake", timeout=30_000)
    assert page.locator("#mistakes .mistake").count() >= 1
    assert page.locator("#mistakes .mistake svg rect.loses").count() >= 1
    page.screenshot(path=str(ARTIFACTS / "lab-inspect.png"), full_page=True)
    first = page.locator("#mistakes .mistake").first
    position = str(first.get_attribute("data-position")).replace("/", "")
    first.click()
    assert page.is_visible("#play")
    assert not page.is_visible("#inspect")
    # The board shows that position once the values have arrived.
    page.wait_for_function(
        "(want) => [...document.querySelectorAll('#grid .cell')].map((c) =>"
        " c.classList.contains('x') ? 'X' : c.classList.contains('o') ? 'O' : '.').join('')"
        " === want",
        arg=position,
        timeout=20_000,
    )
    page.wait_for_selector("#grid .cell.gives-away")  # the exact values mark the losing moves
    page.screenshot(path=str(ARTIFACTS / "lab-play-mistake.png"), full_page=True)
    assert errors == []


def test_compare_three_agents_like_the_arena_command(lab, browser) -> None:  # type: ignore[no-untyped-def]
    url, folder = lab
    page, errors = _page(browser, url, "compare")
    names = ["random", "perfect", "early.npz"]
    for name in names:
        page.check(f"#compare-agents input[value='{name}']")
    page.fill("#compare-games", "10")
    page.fill("#compare-seed", "7")
    page.click("#compare-run")
    page.wait_for_selector("#compare-table tr[data-agent]", timeout=60_000)
    cli = ttt("arena", *names, "--games", "10", "--seed", "7", "--json", cwd=str(folder))
    assert cli.returncode == 0, cli.stderr
    standings = json.loads(cli.stdout)["standings"]
    for name in names:
        cells = page.locator(f"#compare-table tr[data-agent='{name}'] td").all_text_contents()
        s = standings[name]
        assert cells[1:5] == [str(s["win"]), str(s["draw"]), str(s["loss"]), f"{s['points']:g}"]
    perfect = page.locator("#compare-table tr[data-agent='perfect'] td").all_text_contents()
    assert perfect[5:] == ["1.000", "1.000", "0", "0"]  # exact evaluations beside the games
    _finish(page, errors, "lab-compare")


CORPUS = Path(__file__).resolve().parents[1] / "usercode" / "corpus"


def test_check_a_file_and_read_its_first_counterexample(lab, browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    url, _ = lab
    page, errors = _page(browser, url, "check")
    page.wait_for_function(
        "() => /in a box/.test(document.getElementById('check-availability').textContent)"
    )
    buggy = (CORPUS / "memo_minimax.py").read_text()
    buggy = buggy.replace("not (0 <= i < 3 and 0 <= j < 3) or ", "")  # the negative index bug
    (tmp_path / "tictactoe.py").write_text(buggy)
    page.set_input_files("#check-file", str(tmp_path / "tictactoe.py"))  # as a chosen file
    page.wait_for_function("() => document.getElementById('check-source').value.length > 100")
    page.click("#check-run")
    page.wait_for_selector("#check-table tr[data-check='minimax']", timeout=120_000)
    assert "FAIL, 7 of 8 checks pass" in str(page.text_content("#check-status"))
    rows = page.locator("#check-table tr[data-check]")
    assert rows.count() == 8
    assert page.text_content("#check-table tr[data-check='result'] td:nth-child(2)") == "fail"
    assert page.text_content("#check-table tr[data-check='minimax'] td:nth-child(2)") == "pass"
    example = page.locator(".example[data-check='result']")
    assert example.locator("svg").count() == 1  # the board, drawn
    assert "an exception" in str(example.locator("dd").nth(2).text_content())
    assert "should raise an exception" in str(example.locator("code").text_content())
    _finish(page, errors, "lab-check")


def test_a_hostile_upload_is_contained_and_the_page_says_so(lab, browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """It writes to the host's /tmp, forges the grader's lines on every descriptor and prints
    markup: the file lands in the box's own /tmp, the forged lines spoil its own answer (its
    ``FAIL``, never the grader's error), and the page shows its words as text."""
    url, _ = lab
    marker = tmp_path / "escaped"
    hostile = (CORPUS / "memo_minimax.py").read_text() + (
        "\nimport os\n"
        "for fd in range(3, 40):\n"
        "    try:\n"
        '        os.write(fd, b\'{"import": ["v"], "missing": []}\\n["v", "<b>owned</b>"]\\n\')\n'
        "    except OSError:\n"
        "        pass\n"
        "try:\n"
        f"    open({str(marker)!r}, 'w').write('out')\n"
        "except OSError:\n"
        "    pass\n"
    )
    page, errors = _page(browser, url, "check")
    page.fill("#check-source", hostile)
    page.click("#check-run")
    page.wait_for_function(
        "() => /ERROR|FAIL|pass/.test(document.getElementById('check-status').textContent)",
        timeout=120_000,
    )
    assert str(page.text_content("#check-status")).startswith("tictactoe.py: FAIL")
    assert "gave no answer the grader can read" in str(page.text_content("#check-problems"))
    assert page.locator("#check-problems b").count() == 0  # shown as text, never as markup
    assert not marker.exists()
    _finish(page, errors, "lab-check-hostile")
