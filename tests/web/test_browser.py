"""The page in a real headless Chromium (Debian's, driven by Playwright), against a real
``ttt serve``. Screenshots go to artifacts/browser/."""

from __future__ import annotations

from tests.web.conftest import ARTIFACTS


def _wait_for_turn_or_result(page) -> str:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "() => /Your turn|Result:/.test(document.getElementById('status').textContent)",
        timeout=20_000,
    )
    return str(page.text_content("#status"))


def test_play_a_whole_game_against_perfect(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 900, "height": 900})
    page.goto(server + "/")
    page.select_option("#agent", "perfect")
    page.click("#new")
    status = _wait_for_turn_or_result(page)
    moves = 0
    while "Result:" not in status:
        empty = page.locator("#grid .cell:not(.x):not(.o)")
        empty.first.click()
        moves += 1
        status = _wait_for_turn_or_result(page)
        assert moves <= 5
    assert "Result:" in status
    assert "you win" not in status  # perfect never loses
    if "perfect wins" in status:
        assert page.locator("#grid .cell.win").count() == 3
    assert page.text_content("#error") == ""
    page.screenshot(path=str(ARTIFACTS / "game-vs-perfect.png"), full_page=True)


def test_heat_map_undo_and_keyboard(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": 900, "height": 900})
    page.goto(server + "/")
    page.select_option("#agent", "q.npz")
    page.check("#heat")
    page.click("#new")
    _wait_for_turn_or_result(page)
    page.wait_for_selector("#grid .cell .value")
    assert page.locator("#grid .cell .value").count() == 9
    # Keyboard: focus the first cell, move right twice and down once, press Enter.
    page.locator("#grid .cell").first.focus()
    for key in ("ArrowRight", "ArrowRight", "ArrowDown", "Enter"):
        page.keyboard.press(key)
    _wait_for_turn_or_result(page)
    assert page.locator("#grid .cell").nth(5).text_content() == "X"
    assert page.locator("#grid .cell.o").count() == 1
    page.screenshot(path=str(ARTIFACTS / "heat-map.png"), full_page=True)
    page.click("#undo")
    page.wait_for_function("() => document.querySelectorAll('#grid .cell.x').length === 0")
    assert page.locator("#grid .cell.o").count() == 0


def test_phone_width_and_server_errors(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.goto(server + "/")
    _wait_for_turn_or_result(page)
    grid = page.locator("#grid").bounding_box()
    assert grid is not None
    assert grid["x"] >= 0
    assert grid["x"] + grid["width"] <= 360
    page.screenshot(path=str(ARTIFACTS / "phone.png"), full_page=True)
    # A server error is shown in plain words: ask for values from an agent that is not there.
    page.evaluate(
        "async () => { try { await api('/api/move', {position: '.........', agent: 'ghost'}); }"
        " catch (e) { showError(e.message); } }"
    )
    assert "unknown agent 'ghost'" in str(page.text_content("#error"))
