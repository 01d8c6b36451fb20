"""A hostile class: each attack in a file of its own, beside a correct exercise (the memoized
module of the corpus), graded with ``ttt check CLASS/*.py --json`` as a teacher would.

After the run: nothing outside the boxes changed, no process is left, the listener saw
nothing, the grader's memory stayed bounded, every file has a verdict, and no wrong file
passed. The same class is graded without the box (``--isolation off``, the fallback), with
only the attacks that the fallback is said to stop (see ``FALLBACK_CANNOT_STOP``), with the
cgroup that root gets and without one.

Nothing here depends on how busy the machine is (``make test-load`` runs it beside two
CPU-bound processes): the daemon acts only once its box's caller has ended, that is after
its grading, whenever that comes; a process left behind lives two minutes, and the test
waits up to 30 s for the processes that were killed to be gone.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tttlab.usercode import box

CORPUS = Path(__file__).parent / "corpus"
MEMO = (CORPUS / "memo_minimax.py").read_text()
SECRET = "grader-secret-5f1d"

#: Each attack runs when the module is imported, then the module goes on as a correct
#: exercise. ``{outside}`` is a folder beside the class, ``{classmate}`` a classmate's file,
#: ``{port}`` a listener on 127.0.0.1; each attack catches its own failure.
ATTACKS = {
    "delete_outside": """
for victim in ({outside!r} + "/victim.txt", {classmate!r}):
    try:
        os.remove(victim)
    except OSError:
        pass
""",
    "overwrite_outside": """
for victim in ({outside!r} + "/victim.txt", {classmate!r}):
    try:
        with open(victim, "w") as f:
            f.write("overwritten")
    except OSError:
        pass
""",
    "read_outside": """
try:
    print(open({outside!r} + "/secret.txt").read())
except OSError:
    pass
""",
    "fill_disk": """
for where in ("fill.bin", "/tmp/fill.bin", {outside!r} + "/fill.bin"):
    try:
        with open(where, "wb") as f:
            for _ in range(1536):
                f.write(b"\\0" * 2**20)
    except OSError:
        pass
""",
    "fork_200": """
import ctypes
for _ in range(200):
    try:
        if os.fork() == 0:
            ctypes.CDLL(None).prctl(15, b"tttfork", 0, 0, 0)
            time.sleep(120)
            os._exit(0)
    except OSError:
        break
""",
    "daemon": """
import ctypes
_caller = os.getppid()


def _ended(pid):
    try:
        return open(f"/proc/{{pid}}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        ctypes.CDLL(None).prctl(15, b"tttdaemon", 0, 0, 0)
        while not _ended(_caller):
            time.sleep(0.01)
        try:
            with open({outside!r} + "/daemon.txt", "w") as f:
                f.write("still here after the grading")
        except OSError:
            pass
        time.sleep(120)
    os._exit(0)
""",
    "kill_parents": """
import signal
parent = os.getppid()
try:
    grandparent = int(open(f"/proc/{{parent}}/stat").read().rsplit(")", 1)[1].split()[1])
except (OSError, ValueError, IndexError):
    grandparent = 0
for pid in (parent, grandparent):
    if pid > 1:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
""",
    "read_environment": """
found = [os.environ.get("TTT_HOSTILE_SECRET", "")]
for pid in (os.getppid(), 1):
    try:
        found += open(f"/proc/{{pid}}/environ").read().split("\\0")
    except OSError:
        pass
print(" ".join(v for v in found if "TTT_HOSTILE_SECRET" in v or v.startswith("grader")))
""",
    "connect": """
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=1).sendall(b"hello")
except OSError:
    pass
""",
    "flood_stderr": """
for _ in range(600):
    os.write(2, b"x" * 2**20)
""",
    "garbage_fds": """
for fd in range(3, 64):
    try:
        os.write(fd, b'{{"printed":"a"}}\\n["v",{{}}]\\n')
    except OSError:
        pass
""",
}

#: Wrong files that try to pass: ``winner`` answers nonsense, and the file hands in a
#: reference instead, by rebinding the grader's table or by importing tttlab's exercise.
WRONG = {
    "rebind_shapes": """
import sys
try:
    from tttlab.usercode.boxside.shapes.cs50 import CS50Child as _Honest
except ImportError:
    _Honest = None
for _module in list(sys.modules.values()):
    _table = getattr(_module, "CHILDREN", None)
    if isinstance(_table, dict) and "cs50" in _table:
        _Real = _table["cs50"]
        class _Forged(_Real):
            def encode(self, function, value):
                if function == "winner":
                    return "."
                return super().encode(function, value)
        _table["cs50"] = _Forged
        _Real.encode = _Forged.encode
""",
    "import_reference": """
from tttlab.exercise import winner as _reference_winner
""",
}
WRONG_WINNER = ("def winner(board):\n", "def winner(board):\n    return 'nonsense'\n")

#: A wrong file that forges a whole passing run: on its first call it writes the lines an
#: honest grader would write (the results channel's, and answers to the worker's pipe) to
#: every descriptor from 3 to 63, then exits.
FORGE_WINNER = (
    "def winner(board):\n",
    """def winner(board):
    import json
    lines = [{"import": ["v"], "missing": [], "skipped": [], "stubbed": [], "printed": 0}]
    lines += [{"phase": "winner"}, *[["v", "."]] * 5478, {"end": "winner", "printed": 0}]
    lines += [{"done": True}, {"n": "0" * 16, "o": ["v", "."], "p": 0}]
    data = "".join(json.dumps(line) + "\\n" for line in lines).encode()
    for fd in range(3, 64):
        try:
            os.write(fd, data)
        except OSError:
            pass
    os._exit(0)
""",
)

#: What grading without a box cannot stop, attack by attack (as root, as on CI; the
#: reliability guide says the same): files outside the copy are the grader's own to the
#: child, /proc shows the grader's environment, the network is the machine's, and the
#: parent is a process of the same user.
FALLBACK_CANNOT_STOP = {
    "delete_outside",
    "overwrite_outside",
    "read_outside",
    "fill_disk",
    "kill_parents",
    "read_environment",
    "connect",
}


def _module(attack: str) -> str:
    head, sep, rest = MEMO.partition("from functools import cache\n")
    assert sep
    return f"{head}{sep}import os\nimport time\n{attack}\n{rest}"


def _hashes(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _left_behind() -> list[str]:
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            name = (proc / "comm").read_text().strip()
        except OSError:
            continue
        if name in ("tttfork", "tttdaemon"):
            with contextlib.suppress(OSError):
                if (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    found.append(f"{proc.name} {name}")
    return found


def _left_behind_after(seconds: float) -> list[str]:
    """The processes the attacks left behind, once those killed have had ``seconds`` to go
    (one left behind lives 120 s)."""
    deadline = time.monotonic() + seconds
    while _left_behind() and time.monotonic() < deadline:
        time.sleep(0.1)
    return _left_behind()


class Listener:
    """A socket on 127.0.0.1 that counts who connected."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.connections = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.done.is_set():
            try:
                connection, _ = self.socket.accept()
            except OSError:
                continue
            self.connections += 1
            connection.close()

    def close(self) -> None:
        self.done.set()
        self.thread.join(timeout=5)
        self.socket.close()


def _grade_class(tmp_path: Path, attacks: list[str], isolation: str, cgroups: bool = True) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("keep me")
    (outside / "secret.txt").write_text(SECRET)
    klass = tmp_path / "class"
    klass.mkdir()
    classmate = klass / "clean.py"
    classmate.write_text(MEMO)
    listener = Listener()
    wrong = []
    try:
        for name in attacks:
            code = ATTACKS[name].format(
                outside=str(outside), classmate=str(classmate), port=listener.port
            )
            (klass / f"{name}.py").write_text(_module(code))
        for name, code in WRONG.items():
            source = _module(code).replace(*WRONG_WINNER)
            (klass / f"{name}.py").write_text(source)
            wrong.append(f"{name}.py")
        (klass / "forge_channel.py").write_text(_module("").replace(*FORGE_WINNER))
        wrong.append("forge_channel.py")
        files = sorted(klass.glob("*.py"))
        before_class, before_outside = _hashes(klass), _hashes(outside)
        script = (  # VmHWM: this process's peak (ru_maxrss keeps the forking parent's)
            "import sys\n"
            "from tttlab.usercode import box\n"
            # no cgroup, as where cgroups are not writable (as another user than root)
            + ("" if cgroups else "box.Cgroup.make = classmethod(lambda cls, *_: None)\n")
            + "from tttlab.cli import main\n"
            "code = main(sys.argv[1:])\n"
            "status = open('/proc/self/status').read()\n"
            "print('peak', status.split('VmHWM:')[1].split()[0], file=sys.stderr)\n"
            "sys.exit(code)\n"
        )
        options = ["--json", "--only", "winner", "--isolation", isolation, "--time-limit", "60"]
        done = subprocess.run(
            [sys.executable, "-c", script, "check", *map(str, files), *options],
            capture_output=True,
            text=True,
            env={**os.environ, "TTT_HOSTILE_SECRET": SECRET},
            timeout=300,
            check=False,
        )
        left = _left_behind_after(30)
    finally:
        listener.close()
    reports = {Path(r["file"]).name: r for r in map(json.loads, done.stdout.splitlines())}
    assert sorted(reports) == [f.name for f in files], done.stderr[-2000:]
    assert done.returncode in (1, 4), done.stderr[-2000:]
    assert all(reports[w]["status"] != "pass" for w in wrong), {w: reports[w] for w in wrong}
    assert reports["clean.py"]["status"] == "pass"
    assert SECRET not in done.stdout
    assert _hashes(klass) == before_class
    assert left == []
    assert _hashes(outside) == before_outside
    assert listener.connections == 0
    peak_kb = int(done.stderr.rsplit("peak ", 1)[1].split()[0])
    assert peak_kb < 300 * 1024, peak_kb
    forged = reports["forge_channel.py"]
    assert forged["status"] == "fail", forged
    assert forged["checks"]["winner"]["status"] == "fail", forged  # on its first board
    assert forged["checks"]["winner"]["example"]["board"] == ".../.../...", forged
    if "garbage_fds" in attacks:  # its own answer spoiled: its fail, not the grader's error
        assert reports["garbage_fds.py"]["status"] == "fail"
        problem = reports["garbage_fds.py"]["problems"][0]
        assert problem.startswith("gave no answer the grader can read"), problem


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_hostile_class_does_no_harm_in_the_box(tmp_path: Path) -> None:
    _grade_class(tmp_path, sorted(ATTACKS), "required")


@pytest.mark.parametrize("cgroups", [True, False], ids=["cgroup", "no-cgroup"])
def test_the_fallback_stops_what_it_says_it_stops(tmp_path: Path, cgroups: bool) -> None:
    """Without a cgroup too: the daemon and the forks are ended by the box's caller, their
    subreaper, when the grading ends (unless the code killed the caller first: not here)."""
    if cgroups and not box.cgroups():
        pytest.skip("cgroups are not writable here (as another user than root)")
    _grade_class(tmp_path, sorted(set(ATTACKS) - FALLBACK_CANNOT_STOP), "off", cgroups)
