"""A test may be skipped only when something optional is missing, never for the machine's load:
tests/conftest.py's SkipPolicy fails a run with any other skip, and -ra prints every reason."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.conftest import SkipPolicy, allowed_skip

pytest_plugins = ("pytester",)

ROOT = Path(__file__).resolve().parents[1]

#: Every skip reason the suite has, with what it says when it is an f-string.
THE_SUITES_REASONS = [
    "could not import 'mdptoolbox.mdp': No module named 'mdptoolbox'",
    "the distributed extra (Ray) is not installed",
    "the neural extra is not installed",
    "the dev extras are not installed",
    "/usr/bin/chromium is not installed (make test installs it)",
    "bubblewrap is not installed",
    "/usr/bin/python3.11 is not installed",
    "uv is not installed beside /work/main/.venv/bin/python",
    "tqdm is installed here: the folder would import it for real",
    "sb3 is installed",
    "no /proc",
    "no scheduler statistics",
    "no scheduler statistics: the limit counts CPU time",
    "no bubblewrap box here",
    "a Python that nobody can run needs root (to make a Python that nobody runs, or to become "
    "nobody)",
    "no user nobody (65534) on this machine",
    "root cannot make a user namespace here: no user namespace",
    "cgroups are not writable here",
    "cgroups are not writable here (as another user than root)",
]

REFUSED = [
    "Ray's head did not register within Ray's own 30 s: the machine was too busy",
    "too slow on this machine",
    "unconditional skip",
    "flaky",
    "tttlab could not be installed for /usr/bin/python3.11: error: no network",
    "",
]

ALLOWED_FILE = """
import pytest

def test_a_module_that_is_missing():
    pytest.importorskip("tttlab_no_such_module")

def test_an_extra_that_is_missing():
    pytest.skip("the neural extra is not installed")

@pytest.mark.skipif(True, reason="no /proc")
def test_a_machine_without_proc():
    pass

@pytest.mark.xfail(reason="known", strict=True)
def test_an_expected_failure():
    assert False

def test_one_that_runs():
    pass
"""

BUSY_TEST = """
import pytest

def test_one_that_runs():
    pass

def test_skipped_for_the_load():
    pytest.skip("the machine was too busy")
"""

BUSY_MODULE = """
import pytest

pytest.skip("the machine was too busy for this module", allow_module_level=True)

def test_never_collected():
    pass
"""


@pytest.mark.parametrize("reason", THE_SUITES_REASONS)
def test_the_suites_reasons_are_allowed(reason: str) -> None:
    assert allowed_skip(reason)


@pytest.mark.parametrize("reason", REFUSED)
def test_load_and_other_reasons_are_not(reason: str) -> None:
    assert not allowed_skip(reason)


@pytest.fixture(autouse=True)
def _few_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The inner runs load xdist alone (-p xdist), not every plugin installed: those cost
    seconds in each of xdist's workers."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def test_skips_for_something_missing_pass(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_allowed=ALLOWED_FILE)
    result = pytester.runpytest("-ra", plugins=[SkipPolicy()])
    result.assert_outcomes(passed=1, skipped=3, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["SKIPPED *the neural extra is not installed"])
    result.stdout.no_fnmatch_line("*not allowed*")


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_a_skip_for_the_load_fails_the_run_and_is_named(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    pytester.makepyfile(test_busy=BUSY_TEST, test_busy_module=BUSY_MODULE)
    result = pytester.runpytest("-ra", "-p", "xdist", *workers, plugins=[SkipPolicy()])
    result.assert_outcomes(passed=1, skipped=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*= skipped for a reason that is not allowed =*",
            "test_busy_module.py: the machine was too busy for this module",
            "test_busy.py::test_skipped_for_the_load: the machine was too busy",
            "A test may be skipped only when something optional is missing*",
        ],
        consecutive=False,
    )


def test_a_failure_stays_a_failure(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fails="def test_fails():\n    assert False\n")
    result = pytester.runpytest(plugins=[SkipPolicy()])
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.no_fnmatch_line("*not allowed*")


def test_the_suite_prints_every_skips_reason() -> None:
    """-ra: a summary line, with its reason, for every skip (and failure, error, xfail)."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    addopts = options["ini_options"]["addopts"].split()
    assert any(opt.startswith("-r") and ("a" in opt or "s" in opt) for opt in addopts)
