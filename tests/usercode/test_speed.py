""":mod:`tttlab.usercode.speed`: time limits in reference units. The documented limits hold
at the reference speed; on a machine measured slower the seconds grow in proportion, at most
by the cap; on a faster one they never shrink; the speed is measured once and kept, or given
from outside; the report says which limits applied. A correct file that is slow but within
the limit at the reference speed keeps its verdict on a slower machine."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tttlab.usercode import speed
from tttlab.usercode.grading import check_path
from tttlab.usercode.speed import CAP, ENV, REFERENCE, limits, reference_speed

CORPUS = Path(__file__).parent / "corpus"


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[int]:
    """No speed given, a cache of this test's own, and a measurement that counts its calls
    and gives 550 episodes/s."""
    calls: list[int] = []
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(speed, "_measured", [])

    def measure(episodes: int = speed.EPISODES) -> float:
        calls.append(episodes)
        return 550.0

    monkeypatch.setattr(speed, "measure", measure)
    return calls


def test_the_limits_grow_in_proportion_up_to_the_cap_and_never_shrink() -> None:
    at = limits(120.0, 5.0, REFERENCE)
    assert (at.time_limit, at.call_seconds, at.factor) == (120.0, 5.0, 1.0)
    faster = limits(120.0, 5.0, 4 * REFERENCE)
    assert (faster.time_limit, faster.call_seconds) == (120.0, 5.0)
    half = limits(120.0, 5.0, REFERENCE / 2)
    assert (half.time_limit, half.call_seconds, half.factor) == (240.0, 10.0, 2.0)
    crawling = limits(120.0, 5.0, 1.0)  # a hostile or broken figure gains the cap at most
    assert crawling.factor == CAP
    assert crawling.time_limit == 120.0 * CAP
    assert "(the cap)" in crawling.note()


def test_the_report_says_which_limits_applied_and_why() -> None:
    slow = limits(120.0, 5.0, 550.0)
    assert slow.note() == (
        "time limits grown 2.00× to 240 s a file, 10.0 s a call: reference speed 550 "
        "episodes/s (given), slower than the 1,100 they are set for"
    )
    data = slow.as_json()
    assert data["factor"] == 2.0
    assert data["reference"] == REFERENCE
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert "at or above the 1,100" in limits(120.0, 5.0, 2000.0).note()


def test_a_speed_given_from_outside_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "275")
    assert reference_speed() == (275.0, "given")
    assert limits(120.0, 5.0).factor == 4.0
    for bad in ("fast", "0", "-3", "nan", "inf"):
        monkeypatch.setenv(ENV, bad)
        monkeypatch.setattr(speed, "measure", lambda episodes=0: 900.0)
        monkeypatch.setattr(speed, "_measured", [])
        assert reference_speed()[1] != "given", bad


def test_the_speed_is_measured_once_and_kept(measured: list[int], tmp_path: Path) -> None:
    assert reference_speed(now=1000.0) == (550.0, "measured")
    assert reference_speed(now=1001.0) == (550.0, "kept")
    assert measured == [speed.EPISODES]
    kept = json.loads((tmp_path / "cache" / "tttlab" / "reference-speed.json").read_text())
    assert kept == {"episodes_per_s": 550.0, "measured_at": 1000.0}
    speed._measured.clear()  # another process: the cache keeps it
    assert reference_speed(now=1002.0) == (550.0, "kept")
    assert reference_speed(now=1000.0 + speed.KEPT + 1) == (550.0, "measured")
    assert len(measured) == 2


def test_a_cache_that_is_no_speed_is_measured_again(measured: list[int], tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "tttlab" / "reference-speed.json"
    cache.parent.mkdir(parents=True)
    for text in ("{", '{"episodes_per_s": -5, "measured_at": 0}', '{"x": 1}', "[]"):
        cache.write_text(text)
        speed._measured.clear()
        assert reference_speed(now=10.0)[1] == "measured", text
    assert len(measured) == 4


def test_the_measure_is_the_course_programs_episodes_per_second_of_cpu_time() -> None:
    value = speed.measure(episodes=20)
    assert math.isfinite(value)
    assert value > 0


SLOW_HELPER = """

import time as _time

def initialV_x(env, triples):
    _time.sleep(0.6)  # slow, but right
    return initial_values(env, triples, env.x)
"""


def test_a_slow_but_right_file_keeps_its_verdict_on_a_slower_machine(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """0.6 s of its own time for a call under a 0.25 s limit set for the reference speed:
    at the reference speed it is past the per-call limit (which counts its own time, and
    fails it); on a machine measured 4 times slower, where the same work takes 4 times the
    seconds, the limit is 1 s, and it passes."""
    source = (CORPUS / "course" / "Environment.py").read_text()
    start = source.index("def initialV_x")
    end = source.index("def initialV_o")
    path = tmp_path / "environment.py"
    path.write_text(source[:start] + source[end:] + SLOW_HELPER)
    options = {"only": ("initialV_x",), "call_seconds": 0.25}
    monkeypatch.setenv(ENV, str(REFERENCE))
    quick = check_path(path, **options)  # type: ignore[arg-type]
    assert quick.status == "fail", quick.as_json()
    assert "did not return within 0.25 s" in " ".join(quick.problems)
    assert quick.limits["factor"] == 1.0
    monkeypatch.setenv(ENV, str(REFERENCE / 4))
    slow = check_path(path, **options)  # type: ignore[arg-type]
    assert slow.ok, slow.as_json()
    assert slow.limits["call_seconds"] == 1.0
    assert any("time limits grown 4.00× (the cap)" in n for n in slow.notes), slow.notes
