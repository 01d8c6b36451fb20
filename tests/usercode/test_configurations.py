"""Every honest configuration of the grader gives the same verdicts on the corpus.

``ttt check`` is run, as a teacher runs it (``ttt check FILES... --json -j 2``), in each of
the configurations it meets on real machines:

- ``root-own-venv`` (the default, and the baseline): root, with a Python that ``nobody``
  cannot run (the suite's own, under /root here), so the box's processes stay root's (the
  rest of the suite grades each of the 29 in this configuration, one by one:
  ``test_cs50.py``, ``test_course.py``, ``test_board.py``);
- ``root-system-venv``: root, with a virtual environment of Debian's /usr/bin/python3.11 that
  ``nobody`` can run, so the box's processes drop to ``nobody``; each box in a pids and
  memory cgroup (skipped where cgroups are not writable);
- ``root-system-venv-no-cgroups``: the same, with no cgroup (``Cgroup.make`` returns None in
  the grader, as where cgroups are not writable);
- ``ordinary-user``: the grader itself run as ``nobody``, with that environment's Python, on
  the corpus copied where ``nobody`` reads it, its HOME and table cache its own;
- ``no-bubblewrap``: bwrap not on the PATH (the PATH's folders, with bwrap's replaced by links
  to everything in it but bwrap): graded without a box, and said so;
- ``bubblewrap-refused``: a fake ``bwrap`` first on the PATH that fails as bubblewrap does
  in a container without user namespaces ("No permissions to creating new namespace...");
- ``no-user-namespaces``: a real one: the grader run as ``nobody`` in a user namespace of its
  own whose ``max_user_namespaces`` is 0, so that bubblewrap cannot make its own.

The corpus: 29 submissions. The correct ``memo_minimax.py``, the course folder ``course/`` and
the board folder ``board/`` (``qlearning.py``) pass; ``plain_minimax.py`` and
``alphabeta_minimax.py`` are ``incomplete`` under ``--time-limit 1`` (``--only utility
minimax``, as in ``test_cs50``: right as far as they go, too slow for all of it);
``course_agent.py`` (an agent, not an exercise) fails without reaching a box ("defines none
of the exercises"); the 16 buggy modules of ``test_cs50.BUGS`` (made with its
``variant()``) and the 7 buggy course folders of ``test_course.COURSE_BUGS`` (its
``course_folder()``) fail, each with its own check among the failed ones.

Grading the whole corpus costs about a minute of CPU time in one configuration (measured on
this 2-core machine: 58 s), so no configuration grades it whole: the baseline and every
configuration grade a representative few (:data:`FEW`): one pass, one fail, one incomplete
and a buggy course folder (6.4 s a configuration, measured), and ``root-system-venv`` (where
the box's processes change owner and are held by cgroups: the most differs there) also
every honest submission of the corpus (:data:`HONEST`: the course folder, its Agent included,
and the board's shape, graded whole), since an honest student failed by a configuration is
the failure that matters most. The whole corpus is graded in the default configuration by
``test_cs50``, ``test_course`` and the shapes' own tests. The runs
(:func:`runs`) group the files by the ``--only`` that their bugs need: the ``result`` check
costs about 3 s of CPU a file where the other six together cost 1.5 s, so only the four
``result`` bugs are checked on it; the course folder and the board's shape are checked
whole, the buggy course folders on the checks their bugs fail.

A verdict is a file's status, the checks that failed with each one's counterexample, and
(where no check ran) its problems; each configuration's verdicts must equal the baseline's
(on the few it grades), and the expected statuses. Each configuration's own Python is also
asked what it is (whether it drops to ``nobody``, has cgroups, has a box), so that a
configuration that quietly became another one fails too.
"""

from __future__ import annotations

import json
import os
import pwd
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.usercode.test_course import COURSE_BUGS, course_folder
from tests.usercode.test_cs50 import BUGS, variant
from tttlab.usercode.report import EXIT_CODES

#: Every configuration shares the system environment and the baseline's verdicts: one worker.
pytestmark = pytest.mark.xdist_group(name="tests/usercode/test_configurations.py")

CORPUS = Path(__file__).parent / "corpus"
REPOSITORY = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = Path("/usr/bin/python3.11")
NOBODY = 65534

#: The check of ``BUGS`` that costs the most (16,167 boards and every invalid action).
COSTLY = "result"

#: What bubblewrap prints where the kernel gives it no user namespace (a container).
NO_NAMESPACES = (
    "bwrap: No permissions to creating new namespace, likely because the kernel does not "
    "allow non-privileged user namespaces. On e.g. debian this can be enabled with "
    "'sysctl kernel.unprivileged_userns_clone=1'."
)


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def _bug(name: str) -> str:
    return f"bugs/{_slug(name)}.py"


def _course_bug(name: str) -> str:
    return f"course-bugs/{_slug(name)}/student"


@dataclass(frozen=True)
class Expected:
    """A submission of the corpus (its path in the corpus folder), its status, and the
    check that must be among the failed ones (a bug's)."""

    path: str
    status: str
    check: str | None = None


EXPECTED = {
    e.path: e
    for e in [
        Expected("memo_minimax.py", "pass"),
        Expected("course", "pass"),
        Expected("board", "pass"),
        Expected("plain_minimax.py", "incomplete"),
        Expected("alphabeta_minimax.py", "incomplete"),
        Expected("course_agent.py", "fail"),
        *(Expected(_bug(name), "fail", check) for name, (check, _, _) in BUGS.items()),
        *(
            Expected(_course_bug(name), "fail", check)
            for name, (check, _, _) in COURSE_BUGS.items()
        ),
    ]
}

#: The buggy course folder the few grade (its Environment only).
FIRST_COURSE_BUG = next(iter(COURSE_BUGS))
#: A representative few: one pass, one fail, one incomplete, a course folder.
FEW = (
    "memo_minimax.py",
    _bug("player-inverted"),
    "plain_minimax.py",
    _course_bug(FIRST_COURSE_BUG),
)
#: Every submission of the corpus that passes (an honest student's work).
HONEST = tuple(path for path, expected in EXPECTED.items() if expected.status == "pass")


@dataclass(frozen=True)
class Run:
    """One ``ttt check`` over some of the corpus, with the options they need."""

    paths: tuple[str, ...]
    options: tuple[str, ...] = ()
    #: the check each path must fail, where only those checks run (``--only``, for the paths
    #: a configuration grades)
    fails: tuple[tuple[str, str], ...] = ()

    def only(self, paths: list[str]) -> list[str]:
        """``--only`` for the checks that the graded ``paths`` among ``fails`` need."""
        need = dict(self.fails)
        return [f"--only={check}" for check in sorted({need[p] for p in paths if p in need})]


def runs() -> list[Run]:
    """The corpus in five runs: the CS50 modules on the checks their bugs need (the costly
    one apart), the course folder (its Environment and its Agent) and the board's shape
    whole, the buggy course folders' Environment on the checks their bugs need, the slow
    modules briefly."""
    cheap = sorted({check for check, _, _ in BUGS.values() if check != COSTLY})
    return [
        Run(
            ("memo_minimax.py", *(_bug(n) for n, (c, _, _) in BUGS.items() if c != COSTLY)),
            tuple(f"--only={check}" for check in cheap),
        ),
        Run(tuple(_bug(n) for n, (c, _, _) in BUGS.items() if c == COSTLY), (f"--only={COSTLY}",)),
        Run(("course", "board", "course_agent.py")),
        # the buggy folders' Environment only, on the checks their bugs fail: their Agent is
        # the course folder's, graded above
        Run(
            tuple(_course_bug(n) for n in COURSE_BUGS),
            ("--exercise=course",),
            tuple((_course_bug(n), check) for n, (check, _, _) in COURSE_BUGS.items()),
        ),
        Run(
            ("plain_minimax.py", "alphabeta_minimax.py"),
            ("--time-limit=1", "--only=utility", "--only=minimax"),
        ),
    ]


def test_the_runs_grade_the_whole_corpus_once() -> None:
    graded = [p for run in runs() for p in run.paths]
    assert sorted(graded) == sorted(EXPECTED)
    assert len(graded) == 29
    assert set(FEW) <= set(EXPECTED)


@dataclass
class Configuration:
    """How the grader is run: its Python, its user, its environment, what runs it."""

    python: str
    env: dict[str, str]
    user: int | None = None
    #: Python run in the grader's process before ``ttt`` (``python -c``).
    patch: str = ""
    #: The command that runs the grader (a user namespace of its own).
    wrapper: list[str] = field(default_factory=list)
    #: Grade every file of the corpus (else :data:`FEW`).
    honest: bool = False  # every honest submission too (HONEST), not only the few

    def command(self, code: str | None, args: list[str]) -> list[str]:
        """The command line: ``ttt ARGS`` (``code`` None), or this Python running ``code``."""
        if code is None:
            entry = "from tttlab._entry import run\nrun()\n"
            if not self.patch:
                return [*self.wrapper, self.python, "-m", "tttlab", *args]
            return [*self.wrapper, self.python, "-c", self.patch + entry, *args]
        return [*self.wrapper, self.python, "-c", self.patch + code, *args]

    def run(
        self, code: str | None, args: list[str], cwd: Path, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        user: dict[str, Any] = {}
        if self.user is not None:
            user = {"user": self.user, "group": self.user, "extra_groups": []}
        return subprocess.run(
            self.command(code, args),
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            **user,
        )

    def probe(self, cwd: Path) -> tuple[int, int | None, bool, str]:
        """What this configuration's grader is: its user, the user a box runs as, whether
        each box gets a cgroup, how submissions are contained."""
        code = (
            "import json, os\nfrom tttlab.usercode import box\n"
            "print(json.dumps([os.getuid(), box.run_as(), box.cgroups(), "
            "box.isolation().describe]))\n"
        )
        done = self.run(code, [], cwd, timeout=120)
        assert done.returncode == 0, done.stderr
        uid, run_as, cgroups, isolation = json.loads(done.stdout)
        return uid, run_as, cgroups, isolation


#: In the grader's process: no cgroup for any box, as where cgroups are not writable.
NO_CGROUPS = (
    "from tttlab.usercode import box\n"
    "box.Cgroup.make = classmethod(lambda cls, *args: None)\n"
    "assert not box.cgroups()\n"
)

#: Runs ``argv[1:]`` as ``nobody`` in a user namespace of its own whose
#: ``max_user_namespaces`` is 0, as a kernel or container without user namespaces: a
#: parent (root) maps the child's root and ``nobody`` to themselves, the child (root in its
#: namespace) sets the limit, becomes ``nobody`` and runs the command. Exit 125, and a line
#: that starts "no user namespace", where none can be made at all.
WITHOUT_USER_NAMESPACES = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
ready_r, ready_w = os.pipe()
go_r, go_w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(ready_r)
    os.close(go_w)
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        os.write(2, f"no user namespace: {os.strerror(ctypes.get_errno())}\n".encode())
        os._exit(125)
    os.write(ready_w, b"1")
    if os.read(go_r, 1) != b"1":
        os._exit(125)
    with open("/proc/sys/user/max_user_namespaces", "w") as f:
        f.write("0")
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    os.execv(sys.argv[1], sys.argv[1:])
os.close(ready_w)
os.close(go_r)
if os.read(ready_r, 1) == b"1":
    for name in ("uid_map", "gid_map"):
        with open(f"/proc/{pid}/{name}", "w") as f:
            f.write("0 0 1\n65534 65534 1\n")
    os.write(go_w, b"1")
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


def _private_folder(prefix: str) -> Path:
    """A folder in /tmp that every user may enter and read (pytest's are 0700)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    folder.chmod(0o755)
    return folder


def _readable_by_all(folder: Path) -> None:
    for path in (folder, *folder.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.fixture(scope="session")
def corpus() -> Iterator[Path]:
    """The 29 submissions in one folder that ``nobody`` may read (0755 folders, 0644 files)."""
    folder = _private_folder("ttt-configurations-corpus-")
    try:
        for name in ("memo_minimax.py", "plain_minimax.py", "alphabeta_minimax.py"):
            shutil.copyfile(CORPUS / name, folder / name)
        shutil.copyfile(CORPUS / "course_agent.py", folder / "course_agent.py")
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(CORPUS / "course", folder / "course", ignore=ignore)
        shutil.copytree(CORPUS / "board", folder / "board", ignore=ignore)
        (folder / "bugs").mkdir()
        for name, (_, changes, _) in BUGS.items():
            variant(folder / "bugs", changes, Path(_bug(name)).name)
        for name, (_, changes, _) in COURSE_BUGS.items():
            course_folder(folder / Path(_course_bug(name)).parent, changes)
        for path in folder.rglob("__pycache__"):
            shutil.rmtree(path)
        _readable_by_all(folder)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _suite_env() -> dict[str, str]:
    return dict(os.environ, COLUMNS="100", NO_COLOR="1")


def _root_only(what: str) -> None:
    if os.getuid() != 0:
        pytest.skip(f"{what} needs root (to make a Python that nobody runs, or to become nobody)")
    try:
        pwd.getpwuid(NOBODY)
    except KeyError:
        pytest.skip(f"no user nobody ({NOBODY}) on this machine")


@pytest.fixture(scope="session")
def system_venv() -> Iterator[Path]:
    """A virtual environment of Debian's Python with tttlab installed (editable, from uv's
    cache), in a folder that ``nobody`` may enter: that user can run its Python."""
    _root_only("a Python that nobody can run")
    if not SYSTEM_PYTHON.exists():
        pytest.skip(f"{SYSTEM_PYTHON} is not installed")
    uv = Path(sys.executable).parent / "uv"
    if not uv.exists():
        pytest.skip(f"uv is not installed beside {sys.executable}")
    folder = _private_folder("ttt-configurations-venv-")
    try:
        venv = folder / "venv"
        subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", "--without-pip", str(venv)], check=True)
        python = venv / "bin" / "python"
        install = [str(uv), "pip", "install", "--quiet", "--python", str(python)]
        done = subprocess.run(
            [*install, "--offline", "-e", str(REPOSITORY)], capture_output=True, text=True
        )
        if done.returncode != 0:  # uv's cache lacks something: ask the index
            done = subprocess.run([*install, "-e", str(REPOSITORY)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"tttlab could not be installed for {SYSTEM_PYTHON}: {done.stderr[-300:]}")
        ran = subprocess.run(
            [str(python), "-c", "import sys; print(sys.prefix)"],
            user=NOBODY,
            group=NOBODY,
            extra_groups=[],
            capture_output=True,
            text=True,
            check=False,
        )
        assert ran.returncode == 0, f"nobody cannot run {python}: {ran.stderr}"
        assert ran.stdout.strip() == str(venv)
        yield python
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def nobody_home() -> Iterator[Path]:
    """A HOME of ``nobody``'s, where its grader keeps its table cache."""
    _root_only("a home of nobody's")
    folder = _private_folder("ttt-configurations-home-")
    os.chown(folder, NOBODY, NOBODY)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _nobody_env(home: Path) -> dict[str, str]:
    return dict(_suite_env(), HOME=str(home), TTTLAB_CACHE_DIR=str(home / "cache"), TMPDIR="/tmp")


def _path_without_bwrap(folder: Path) -> str:
    """The PATH, each of its folders that holds bwrap replaced by a folder of links to
    everything in it but bwrap."""
    folders = []
    for number, entry in enumerate(os.environ.get("PATH", os.defpath).split(os.pathsep)):
        if not entry or not (Path(entry) / "bwrap").exists():
            folders.append(entry)
            continue
        links = folder / f"path{number}"
        links.mkdir()
        for item in Path(entry).iterdir():
            if item.name != "bwrap":
                (links / item.name).symlink_to(item)
        folders.append(str(links))
    path = os.pathsep.join(folders)
    assert shutil.which("bwrap", path=path) is None
    return path


def _fake_bwrap(folder: Path) -> str:
    """A PATH with a ``bwrap`` first on it that fails as bubblewrap does without user
    namespaces."""
    (folder / "bwrap").write_text(
        f"#!/bin/sh\nprintf '%s\\n' {shlex.quote(NO_NAMESPACES)} >&2\nexit 1\n"
    )
    (folder / "bwrap").chmod(0o755)
    return os.pathsep.join([str(folder), os.environ.get("PATH", os.defpath)])


@dataclass
class Graded:
    """What one configuration's runs gave: each file's verdict and isolation, each run's
    exit code and stderr."""

    verdicts: dict[str, Any] = field(default_factory=dict)
    isolation: dict[str, str] = field(default_factory=dict)
    exits: list[tuple[int, int]] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)


def verdict(report: dict[str, Any]) -> dict[str, Any]:
    """What must not depend on the configuration: the status, the checks that failed and
    their counterexamples, and, where no check ran, the problems."""
    failed = {
        name: (check["example"] or {}).get("repro")
        for name, check in report["checks"].items()
        if check["status"] == "fail"
    }
    return {
        "status": report["status"],
        "failed": failed,
        "problems": report["problems"] if not report["checks"] else [],
    }


def grade(configuration: Configuration, corpus: Path) -> Graded:
    """Each run of the corpus (the files this configuration grades), ``-j 2``."""
    graded = Graded()
    chosen = set(FEW) | (set(HONEST) if configuration.honest else set())
    for run in runs():
        paths = [p for p in run.paths if p in chosen]
        if not paths:
            continue
        args = ["check", *paths, *run.options, *run.only(paths), "--json", "-j", "2"]
        done = configuration.run(None, args, corpus)
        reports = [json.loads(line) for line in done.stdout.splitlines()]
        assert [r["file"] for r in reports] == paths, (done.returncode, done.stderr[-2000:])
        for report in reports:
            graded.verdicts[report["file"]] = verdict(report)
            graded.isolation[report["file"]] = report["isolation"]
        worst = next((s for s in ("fail", "error", "incomplete") if _any(reports, s)), "pass")
        graded.exits.append((done.returncode, EXIT_CODES[worst]))
        graded.stderr.append(done.stderr)
    return graded


def _any(reports: list[dict[str, Any]], status: str) -> bool:
    return any(r["status"] == status for r in reports)


def _as_expected(graded: Graded) -> None:
    for path, found in graded.verdicts.items():
        expected = EXPECTED[path]
        assert found["status"] == expected.status, (path, found)
        if expected.check is not None:
            assert expected.check in found["failed"], (path, found)
        if path == "course_agent.py":
            assert found["problems"][0].startswith("defines none of the exercises"), found
    for code, worst in graded.exits:
        assert code == worst


def _contained_as_said(graded: Graded, isolation: str) -> None:
    """Every report gives the configuration's isolation; stderr says it (one line) where
    no box was made, and nothing else."""
    assert set(graded.isolation.values()) == {isolation}
    said = "" if isolation == "bubblewrap" else f"ttt check: {isolation}\n"
    for stderr in graded.stderr:
        assert stderr == said


@pytest.fixture(scope="session")
def baseline(corpus: Path) -> tuple[Graded, str]:
    """The default configuration's verdicts (the suite's own Python, as this user), of the
    representative few, and its isolation."""
    configuration = Configuration(sys.executable, _suite_env())
    _, _, _, isolation = configuration.probe(corpus)
    return grade(configuration, corpus), isolation


CONFIGURATIONS = [
    "root-own-venv",
    "root-system-venv",
    "root-system-venv-no-cgroups",
    "ordinary-user",
    "no-bubblewrap",
    "bubblewrap-refused",
    "no-user-namespaces",
]


@pytest.mark.parametrize("name", CONFIGURATIONS)
def test_every_configuration_gives_the_same_verdicts(
    name: str,
    corpus: Path,
    baseline: tuple[Graded, str],
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    default, default_isolation = baseline
    if name == "root-own-venv":
        _as_expected(default)
        assert len(default.verdicts) == len(FEW)
        _contained_as_said(default, default_isolation)
        return

    boxed = False  # whether this configuration must give a box where the baseline does
    unboxed: str | None = None  # the start of the line that says there is no box
    drops: int | None = None  # the user a box must run as
    cgroups: bool | None = None
    if name.startswith("root-system-venv"):
        python = request.getfixturevalue("system_venv")
        configuration = Configuration(str(python), _suite_env(), honest=name == "root-system-venv")
        boxed, drops = True, NOBODY
        if name.endswith("no-cgroups"):
            configuration.patch, cgroups = NO_CGROUPS, False
        else:
            cgroups = True
    elif name in ("ordinary-user", "no-user-namespaces"):
        python = request.getfixturevalue("system_venv")
        env = _nobody_env(request.getfixturevalue("nobody_home"))
        configuration = Configuration(str(python), env, user=NOBODY)
        cgroups = False
        if name == "no-user-namespaces":
            configuration.user = None  # root maps the namespace; the grader is nobody in it
            configuration.wrapper = [sys.executable, "-c", WITHOUT_USER_NAMESPACES]
            unboxed = "not contained by a box: bubblewrap cannot run here (bwrap: "
    elif name == "no-bubblewrap":
        env = dict(_suite_env(), PATH=_path_without_bwrap(tmp_path))
        configuration = Configuration(sys.executable, env)
        unboxed = "not contained by a box: bubblewrap (bwrap) is not installed"
    else:
        assert name == "bubblewrap-refused"
        env = dict(_suite_env(), PATH=_fake_bwrap(tmp_path))
        configuration = Configuration(sys.executable, env)
        unboxed = f"not contained by a box: bubblewrap cannot run here ({NO_NAMESPACES})"

    if name == "no-user-namespaces":
        tried = configuration.run("pass", [], corpus, timeout=60)
        if tried.returncode == 125 and tried.stderr.startswith("no user namespace"):
            pytest.skip(f"root cannot make a user namespace here: {tried.stderr.strip()}")
    uid, run_as, has_cgroups, isolation = configuration.probe(corpus)
    if cgroups is True and not has_cgroups:
        pytest.skip("cgroups are not writable here")
    assert uid == (NOBODY if name in ("ordinary-user", "no-user-namespaces") else os.getuid())
    assert run_as == drops
    if cgroups is not None:
        assert has_cgroups == cgroups
    if boxed:
        assert isolation == default_isolation
    if unboxed is not None:
        assert isolation.startswith(unboxed), isolation
        assert "graded with rlimits, a private copy and a clean environment only" in isolation

    graded = grade(configuration, corpus)
    _as_expected(graded)
    assert set(graded.verdicts) == set(FEW) | (set(HONEST) if configuration.honest else set())
    shared = set(graded.verdicts) & set(default.verdicts)
    assert shared == set(FEW)
    assert {p: graded.verdicts[p] for p in shared} == {p: default.verdicts[p] for p in shared}
    _contained_as_said(graded, isolation)
    if unboxed is not None:
        refused = configuration.run(
            None, ["check", "memo_minimax.py", "--isolation", "required"], corpus
        )
        assert refused.returncode == 2
        assert refused.stdout == ""
        assert refused.stderr.count("\n") == 1
        assert unboxed in refused.stderr
        assert "--isolation required refuses to grade" in refused.stderr
