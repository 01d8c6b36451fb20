"""The box a submission runs in: what ``ttt check`` does to contain code it did not write.

Each submission gets a box of its own (as Gradescope and PrairieLearn give each one a
container, and IOI's ``isolate`` a namespace and a user):

- **bubblewrap** (``bwrap``, Debian's ``bubblewrap``) where it runs: new user, mount, PID,
  network, IPC and UTS namespaces; a read-only view of the Python installation and the system
  libraries only (no ``/home``, ``/root``, ``/etc``, no project folders: tttlab itself is not
  there); the submission's own files copied into a private folder on a size-capped tmpfs
  (``/box/work``, its working folder, on the box's one writable tmpfs with ``/tmp``; /dev
  holds the device nodes only, read-only); no network (only its own loopback); its own PID 1, so
  that every process it starts ends when the box does; no capabilities.
- **everywhere** (the fallback too): a clean, fixed environment (none of the grader's
  variables), a private copy of the submission's files as its working folder, and rlimits on
  CPU time, address space, file size, open files and processes, with no core files. Run as
  root, the box's processes also drop to the ``nobody`` user (where ``nobody`` can run the
  grader's Python), so that the grader's files and processes are not theirs.

:func:`isolation` says which of the two this machine gives, probed once per process. What
each mechanism does and does not contain is written out in the reliability guide.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tttlab.errors import TttlabError
from tttlab.limits import BOX_COPY_BYTES, BOX_WRITABLE_BYTES

__all__ = [
    "BOX",
    "Cgroup",
    "Isolation",
    "TooLarge",
    "cgroups",
    "child_environment",
    "command",
    "isolation",
    "private_copy",
    "processes_of",
    "run_as",
]

#: Where the box's folders are, inside it.
BOX = Path("/box")
#: The user a child run by root becomes (``nobody``).
NOBODY = 65534


class TooLarge(TttlabError):
    """A submission larger than a box takes (:data:`~tttlab.limits.BOX_COPY_BYTES`)."""


@dataclass(frozen=True)
class Isolation:
    """How submissions are contained here: ``boxed`` (bubblewrap) or not, and in words."""

    boxed: bool
    describe: str


def child_environment(home: str) -> dict[str, str]:
    """The child's whole environment: fixed, with none of the grader's variables."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",  # a module that plots at import must not open a window
        "MPLCONFIGDIR": "/tmp",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        **{k: v for k, v in os.environ.items() if k.startswith("OPENBLAS_CORETYPE")},
    }


def _run_as() -> int | None:
    """The uid to drop to: ``nobody`` when run by root and Python runs as that user."""
    if not hasattr(os, "getuid") or os.getuid() != 0:
        return None
    return NOBODY if _nobody_can_run_python() else None


@cache
def _nobody_can_run_python() -> bool:
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", "pass"],
            user=NOBODY,
            group=NOBODY,
            extra_groups=[],
            env={},
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _readable_roots() -> list[str]:
    """What the box sees, read-only: the system's libraries and the Python installation."""
    roots = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]
    roots += ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime"]
    roots += ["/etc/alternatives", "/etc/ssl/certs"]
    for prefix in (sys.base_prefix, sys.prefix, sys.exec_prefix):
        roots.append(prefix)
    executable = Path(sys.executable)
    roots.append(str(executable.parent))
    roots.append(str(executable.resolve().parent.parent))
    return list(dict.fromkeys(r for r in roots if os.path.exists(r)))


def _tttlab_folder() -> str:
    return str(Path(__file__).resolve().parents[1])


@cache
def isolation() -> Isolation:
    """Whether a box can be made on this machine (probed once: a bubblewrap box runs a
    Python that prints a word), and the one line that says so."""
    found = shutil.which("bwrap")
    if found is None:
        return Isolation(
            False,
            "not contained by a box: bubblewrap (bwrap) is not installed; "
            "graded with rlimits, a private copy and a clean environment only",
        )
    probe = [sys.executable, "-I", "-S", "-c", "print('boxed')"]
    empty = tempfile.mkdtemp(prefix="ttt-probe-")
    os.chmod(empty, 0o755)  # the box's user reads it
    try:
        done = subprocess.run(
            _bwrap(found, empty, empty, None) + probe,
            capture_output=True,
            timeout=60,
            env=child_environment("/box/work"),
            user=_run_as(),
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        reason = str(error)
    else:
        if done.stdout.strip() == b"boxed":
            return Isolation(True, "bubblewrap")
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        reason = lines[-1] if lines else f"exit code {done.returncode}"
    finally:
        os.rmdir(empty)
    return Isolation(
        False,
        f"not contained by a box: bubblewrap cannot run here ({reason}); "
        "graded with rlimits, a private copy and a clean environment only",
    )


def _bwrap(bwrap: str, grader: str, submission: str, hidden: str | None) -> list[str]:
    """The box: everything read-only but one tmpfs of :data:`BOX_WRITABLE_BYTES` at /tmp,
    which holds the working folder (``/box/work`` is a link to ``/tmp/work``); /dev holds
    the device nodes only."""
    args = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]
    # started by root, bwrap keeps every capability inside the box: the box's root could then
    # open the caller's descriptors through /proc whatever the caller's dumpable flag says
    args += ["--cap-drop", "ALL"]
    # /tmp first: the installation may live under it (a clone in /tmp), bound on top
    args += ["--size", str(BOX_WRITABLE_BYTES), "--tmpfs", "/tmp", "--dir", "/tmp/work"]
    for root in _readable_roots():
        args += ["--ro-bind", root, root]
    if hidden is not None and any(
        hidden == r or hidden.startswith(r.rstrip("/") + "/") for r in _readable_roots()
    ):
        args += ["--tmpfs", hidden, "--remount-ro", hidden]  # tttlab's own package is not there
    args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"]
    args += ["--dir", str(BOX), "--ro-bind", grader, str(BOX / "grader")]
    args += ["--ro-bind", submission, str(BOX / "submission")]
    args += ["--symlink", "/tmp/work", str(BOX / "work"), "--remount-ro", "/"]
    args += ["--chdir", str(BOX / "work")]
    for key, value in child_environment(str(BOX / "work")).items():
        args += ["--setenv", key, value]
    return args


def command(grader: Path, submission: Path, job: str, boxed: bool, channel: int) -> list[str]:
    """The command line that runs the box's caller in ``grader`` on ``job`` (a path as the
    box sees it) over the private copy ``submission``, writing its results on the inherited
    descriptor ``channel``."""
    python = [sys.executable, "-I", "-B"]
    if not boxed:
        return [*python, str(grader / "__main__.py"), "caller", job, str(channel)]
    bwrap = shutil.which("bwrap") or "bwrap"
    box = _bwrap(bwrap, str(grader), str(submission), _tttlab_folder())
    return [*box, *python, str(BOX / "grader" / "__main__.py"), "caller", job, str(channel)]


def run_as() -> int | None:
    """The uid the box's processes run as (None: the grader's own)."""
    return _run_as()


class Cgroup:
    """A pids and memory cgroup of one box, where this process may make one (as root, with
    cgroup v1's ``pids`` and ``memory`` hierarchies or v2 with both delegated): every
    process of the box is in it, so the box's processes and its memory are bounded as a
    whole, and what is left in it when the run ends is killed."""

    def __init__(self, folders: list[Path]) -> None:
        self.folders = folders

    @classmethod
    def make(cls, processes: int, memory_bytes: int) -> Cgroup | None:
        name = f"ttt-check-{os.getpid()}-{next(_serial)}"
        folders = []
        try:
            for parent, limits in _cgroup_parents(processes, memory_bytes):
                folder = parent / name
                folder.mkdir()
                folders.append(folder)
                for key, value in limits.items():
                    (folder / key).write_text(str(value))
        except OSError:
            Cgroup(folders).remove()
            return None
        return cls(folders) if folders else None

    @staticmethod
    def held(argv: list[str]) -> list[str]:
        """``argv``, started by a shell that waits for a line on its standard input (a pipe
        from the grader) before it runs, with /dev/null as its input: the grader moves it into
        the cgroup meanwhile (:meth:`join`), as root, before the box starts and before
        anything it runs can fork. The shell itself may already run as ``nobody``, which may
        not write the cgroup's files."""
        return ["/bin/sh", "-c", 'read -r _ && exec "$@" </dev/null', "sh", *argv]

    def join(self, pid: int) -> None:
        """Move the process ``pid`` (held at its start by :meth:`held`) into the cgroup;
        an :class:`OSError` when it cannot be moved."""
        for folder in self.folders:
            (folder / "cgroup.procs").write_text(str(pid))

    def kill(self) -> None:
        """Kill every process in the cgroup (once the box is done, nothing in it may run)."""
        for pid in [pid for f in self.folders for pid in _pids(f)]:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

    def remove(self) -> None:
        """Kill whatever is left in the cgroup, then remove it."""
        for _ in range(50):
            self.kill()
            try:
                for folder in self.folders:
                    if folder.exists():
                        folder.rmdir()
                return
            except OSError:
                time.sleep(0.02)


_serial = itertools.count()


def _pids(folder: Path) -> list[int]:
    try:
        return [int(p) for p in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _cgroup_parents(processes: int, memory_bytes: int) -> list[tuple[Path, dict[str, int]]]:
    """Where this process may make a box's cgroup, and what to write in it."""
    if not hasattr(os, "getuid") or os.getuid() != 0:
        return []
    root = Path("/sys/fs/cgroup")
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return []
    mine = dict(line.split(":", 2)[1:] for line in lines if line.count(":") >= 2)
    v1 = {"pids": {"pids.max": processes}, "memory": {"memory.limit_in_bytes": memory_bytes}}
    found = []
    for controller, limits in v1.items():
        folder = root / controller / mine.get(controller, "/").lstrip("/")
        if controller in mine and os.access(folder, os.W_OK):
            found.append((folder, limits))
    if len(found) == 2:
        return found
    unified = root / mine.get("", "/").lstrip("/")
    try:
        delegated = (unified / "cgroup.subtree_control").read_text().split()
    except OSError:
        return []
    if {"pids", "memory"} <= set(delegated) and os.access(unified, os.W_OK):
        return [(unified, {"pids.max": processes, "memory.max": memory_bytes})]
    return []


@cache
def cgroups() -> bool:
    """Whether each box gets a pids and a memory cgroup here (probed once)."""
    made = Cgroup.make(8, 2**30)
    if made is None:
        return False
    made.remove()
    return True


def processes_of(uid: int) -> int:
    """How many processes ``uid`` runs now (RLIMIT_NPROC counts them all, box or not)."""
    return sum(1 for p in Path("/proc").glob("[0-9]*") if _owner(p) == uid)


def _owner(path: Path) -> int:
    try:
        return path.stat().st_uid
    except OSError:
        return -1


def private_copy(path: Path, into: Path, leave_out: tuple[str, ...] = ()) -> list[str]:
    """Copy the submission (one file, or a folder's files, but those whose names end with
    one of ``leave_out``) into ``into``; the copied files' names, relative to it. Links are
    not followed; past :data:`~tttlab.limits.BOX_COPY_BYTES` bytes a :class:`TooLarge`
    says so."""
    into.mkdir(parents=True, exist_ok=True)
    if not path.is_dir():
        target = into / path.name
        shutil.copyfile(path, target)
        return [path.name]
    total = 0
    copied = []
    for source in sorted(path.rglob("*")):
        relative = source.relative_to(path)
        if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            continue
        if source.is_symlink() or not source.is_file() or source.name.endswith(leave_out):
            continue
        total += source.stat().st_size
        if total > BOX_COPY_BYTES:
            raise TooLarge(f"the folder holds more than {BOX_COPY_BYTES // 2**20} MB of files")
        target = into / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        copied.append(str(relative))
    return copied
