"""Shared fixtures and hypothesis strategies: boards read as strings, games as move lists."""

from __future__ import annotations

import gc
import os
import re
import shutil
import tempfile

import numpy as np
import pytest
from hypothesis import strategies as st

from tttlab.game import Geometry, Position, StateSpace, state_space
from tttlab.solvers import Solution, solve_table

# The suite, and every command it runs, keeps its table cache in a folder of its own, never
# the user's (set before any test imports tttlab's tables), removed at the end.
_OWN_CACHE = None
if "TTTLAB_CACHE_DIR" not in os.environ:
    _OWN_CACHE = tempfile.mkdtemp(prefix="tttlab-test-cache-")
    os.environ["TTTLAB_CACHE_DIR"] = _OWN_CACHE


# The suite's own processes collect cyclic garbage less often: a worker of `pytest -n 2` holds
# over a million objects (every test module, its data and the tables it cached), and each
# full collection walks them all. Timed with gc.callbacks over the parallel phase, the two
# workers spent 44.6 s collecting with CPython's default thresholds (700, 10, 10), 40.3 s
# with gc.freeze() after the collection, 16.5 s with these (the phase took 555 s, against
# 578 s in the run just before with the defaults).
# Only the tests' processes: whatever they start keeps Python's defaults.
gc.set_threshold(10_000, 10, 10)


# ttt check's time limits are set by the machine's reference speed (tttlab.usercode.speed):
# the suite gives the reference itself, so that every limit a test names is the one that
# applies; tests/usercode/test_speed.py tests the measurement and the growth.
os.environ.setdefault("TTTLAB_REFERENCE_SPEED", "1100")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _OWN_CACHE is not None:
        shutil.rmtree(_OWN_CACHE, ignore_errors=True)


#: The only reasons a test may be skipped for, each a whole reason: something optional is
#: missing (a module, an extra, a program), or the machine lacks what the test's subject needs
#: (Linux's /proc or scheduler statistics, bubblewrap's box, root, the user nobody, user
#: namespaces, writable cgroups). Never the machine's load or speed: a test skipped for any
#: other reason fails the run (SkipPolicy), and pytest's -ra (pyproject.toml) prints every
#: skip's reason at the end.
ALLOWED_SKIPS = tuple(
    re.compile(pattern, re.DOTALL)
    for pattern in (
        r"could not import '[\w.]+': .*",  # pytest.importorskip's own reason
        r".*\b(is|are) not installed\b.*",  # "the neural extra is not installed", "bubblewrap ..."
        r"\S+ is installed\b.*",  # the test's subject is its absence ("tqdm is installed here")
        r"no /proc",
        r"no scheduler statistics\b.*",
        r"no bubblewrap box here",
        r".* needs root \(.*\)",
        r"no user nobody \(\d+\) on this machine",
        r"root cannot make a user namespace here: .*",
        r"cgroups are not writable here\b.*",
    )
)


def allowed_skip(reason: str) -> bool:
    return any(pattern.fullmatch(reason) for pattern in ALLOWED_SKIPS)


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """A skipped report's reason, as -ra prints it."""
    longrepr = report.longrepr
    reason = str(longrepr[2]) if isinstance(longrepr, tuple | list) else str(longrepr)
    return reason.removeprefix("Skipped: ")


class SkipPolicy:
    """Fails a run in which a test (or a module) was skipped for a reason that ALLOWED_SKIPS
    does not hold, and names each such skip at the end. Registered in the process that
    reports (not in xdist's workers: their reports reach it)."""

    def __init__(self) -> None:
        self.refused: list[tuple[str, str]] = []

    def _see(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = skip_reason(report)
            if not allowed_skip(reason):
                self.refused.append((report.nodeid, reason))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._see(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._see(report)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.refused and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.refused:
            return
        terminalreporter.section("skipped for a reason that is not allowed", sep="=", red=True)
        for nodeid, reason in self.refused:
            terminalreporter.line(f"{nodeid}: {reason}")
        terminalreporter.line(
            "A test may be skipped only when something optional is missing (ALLOWED_SKIPS in "
            "tests/conftest.py), never for the machine's load: this run fails."
        )


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(SkipPolicy(), "tttlab-skip-policy")


#: Every geometry the property suite runs over (small enough to play out fast).
GEOMETRIES = [
    Geometry.parse(name)
    for name in ("3x3k3", "3x4k3", "4x3k3", "4x4k3", "4x4k4", "2x2k2", "3x3k2", "1x5k3", "5x5k4")
]

#: Geometries whose full state space the unit tests may enumerate quickly.
SMALL_GEOMETRIES = [
    Geometry.parse(name) for name in ("3x3k3", "3x4k3", "2x2k2", "3x3k2", "1x5k3", "2x3k2")
]


@st.composite
def games(draw: st.DrawFn, geometry: Geometry | None = None) -> tuple[Geometry, list[Position]]:
    """A random legal game (possibly unfinished): the geometry and every position in it."""
    g = geometry if geometry is not None else draw(st.sampled_from(GEOMETRIES))
    position = Position.initial(g)
    played = [position]
    stop = draw(st.integers(min_value=0, max_value=g.cells))
    while not position.is_terminal and len(played) <= stop:
        position = position.apply(draw(st.sampled_from(position.legal_moves)))
        played.append(position)
    return g, played


def open_positions(geometry: Geometry, count: int, seed: int) -> np.ndarray:
    """Boards (count × cells, int8) of unfinished positions from random games, of every
    length up to cells − 2 moves."""
    rng = np.random.default_rng(seed)
    found: list[tuple[int, ...]] = []
    while len(found) < count:
        position = Position.initial(geometry)
        for _ in range(rng.integers(0, geometry.cells - 1)):
            after = position.apply(int(rng.choice(position.legal_moves)))
            if after.is_terminal:
                break
            position = after
        found.append(position.cells)
    return np.array(found, dtype=np.int8)


def movers_of(boards: np.ndarray) -> np.ndarray:
    """The player to move (1 X, 2 O) on each board (n × cells, 0/1/2)."""
    return np.where((boards != 0).sum(axis=1) % 2 == 0, 1, 2)


@pytest.fixture(scope="session")
def space3() -> StateSpace:
    return state_space(Geometry(3, 3, 3))


@pytest.fixture(scope="session")
def solution3() -> Solution:
    return solve_table(Geometry(3, 3, 3))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


#: Modules whose module-scoped fixtures cost seconds (a trained network, a server), or whose
#: tests must not run beside each other: each runs on one xdist worker, so the fixture is
#: built once (``make test`` uses --dist loadgroup).
ONE_WORKER = (
    "tests/cli/test_alphazero.py",
    "tests/cli/test_dqn.py",
    "tests/neural/test_alphazero.py",
    "tests/neural/test_dqn.py",
    "tests/neural/test_ppo.py",
    "tests/web/test_browser.py",
    "tests/web/test_lab_browser.py",
    "tests/web/test_lab_api.py",
    "tests/test_docs.py",
    # Each of its class gradings looks for attack processes left anywhere on the machine:
    # run side by side, one found the other's fork bomb still running (a flaky failure).
    "tests/usercode/test_hostile.py",
    # One system environment and one baseline for every configuration.
    "tests/usercode/test_configurations.py",
)


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _module(item) in ONE_WORKER:
            item.add_marker(pytest.mark.xdist_group(name=_module(item)))

    # The longest groups (the modules above) go first, so that none is the last thing the
    # suite waits for while the other worker idles. (The Ray tests, marked ``ray``, run in a
    # phase of their own after this one: the Makefile's unit-ray.)
    def order(item: pytest.Item) -> int:
        return 0 if _module(item) in ONE_WORKER else 1

    items.sort(key=order)
