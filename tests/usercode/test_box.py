"""The box holds what it says (:mod:`tttlab.usercode.box`): everything a submission may write,
together, is bounded by :data:`~tttlab.limits.BOX_WRITABLE_BYTES`; /dev holds the device nodes
only; the limits are the ones declared in :mod:`tttlab.limits`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tttlab.limits import BOX_COPY_BYTES, BOX_WRITABLE_BYTES
from tttlab.usercode import box

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None or not box.isolation().boxed, reason="no bubblewrap box here"
)

#: Finds every folder it may write in (the whole tree but /proc and /sys), then writes small
#: files round-robin into all of them until none takes more; prints what it wrote, as JSON.
PROBE = r"""
import json, os
writable = []
for top, folders, _ in os.walk("/"):
    if top in ("/proc", "/sys"):
        folders[:] = []
        continue
    if os.access(top, os.W_OK):
        try:
            with open(os.path.join(top, ".probe"), "wb") as f:
                f.write(b"x")
            writable.append(top)
        except OSError:
            pass
dev = []
for name in ("null", "zero", "urandom"):
    with open("/dev/" + name, "wb" if name == "null" else "rb") as f:
        dev.append(name)
total, k, open_ = 0, 0, set(writable)
while open_:
    for top in sorted(open_):
        try:
            with open(os.path.join(top, f"fill{k}"), "wb") as f:
                f.write(b"\0" * 65536)
            total += 65536
        except OSError:
            open_.discard(top)
    k += 1
print(json.dumps({"writable": writable, "total": total, "dev": dev}))
"""


def _in_box(code: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o755)
        bwrap = shutil.which("bwrap")
        assert bwrap is not None
        argv = box._bwrap(bwrap, folder, folder, box._tttlab_folder())
        done = subprocess.run(
            [*argv, sys.executable, "-I", "-c", code],
            capture_output=True,
            text=True,
            timeout=300,
            user=box.run_as(),
            check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    found: dict[str, object] = json.loads(done.stdout)
    return found


def test_everything_a_submission_writes_is_bounded_together() -> None:
    found = _in_box(PROBE)
    writable = found["writable"]
    assert isinstance(writable, list)
    assert "/tmp" in writable
    assert "/box/work" in writable or "/tmp/work" in writable
    assert not [w for w in writable if w == "/dev" or w.startswith("/dev/")], writable
    total = found["total"]
    assert isinstance(total, int)
    assert BOX_WRITABLE_BYTES // 2 < total <= BOX_WRITABLE_BYTES, (total, writable)
    assert found["dev"] == ["null", "zero", "urandom"]  # the device nodes still work


def test_the_box_limits_are_declared_once_in_limits() -> None:
    source = Path(box.__file__).read_text()
    for name in ("COPY_LIMIT", "WORK_BYTES", "PROCESSES"):
        assert f"\n{name} =" not in source
    assert f"--size {BOX_WRITABLE_BYTES}" in " ".join(box._bwrap("bwrap", "/g", "/s", None))
    assert BOX_COPY_BYTES > 2**20
