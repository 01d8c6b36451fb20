"""A box's pipes as the grader reads them (:mod:`tttlab.usercode.pipes`): within their bounds,
and, once the box has ended, all that its results channel holds, at once."""

from __future__ import annotations

import os
import threading

from tttlab.limits import BOX_STDERR_BYTES
from tttlab.usercode.pipes import Pipes


def test_stderr_keeps_its_head_and_tail_within_the_bound() -> None:
    pipes = Pipes.__new__(Pipes)
    pipes.head, pipes.tail, pipes.dropped = bytearray(), bytearray(), 0
    for k in range(1000):
        pipes._keep_stderr(bytes([65 + k % 26]) * 1000)
    assert len(pipes.head) + len(pipes.tail) == BOX_STDERR_BYTES
    assert pipes.dropped == 1000 * 1000 - BOX_STDERR_BYTES
    text = pipes.stderr()
    assert text.startswith("A" * 1000)
    assert f"[... {pipes.dropped:,} bytes dropped ...]" in text
    assert text.endswith(chr(65 + 999 % 26) * 1000)


def test_once_the_box_has_ended_everything_on_the_results_channel_is_read() -> None:
    """However late this side gets to it (a busy machine): its writer has ended, so what the
    channel holds is all there is, read at once, not left for a wait that may end first."""
    results, channel = os.pipe()
    stderr, held = os.pipe()  # still held open, as by a process the box left behind
    try:
        lines = b"".join(b'["v","."]\n' for _ in range(20_000))  # past a pipe's buffer

        def write() -> None:
            view = memoryview(lines)
            while view:
                view = view[os.write(channel, view) :]

        writer = threading.Thread(target=write)
        writer.start()
        pipes = Pipes(results, stderr, 1 << 20)
        while writer.is_alive():
            pipes.read(0.05)
        os.close(channel)
        pipes.drain_results()
        assert bytes(pipes.channel) == lines
        assert pipes.open  # stderr is still read, for a while
        pipes.close()
    finally:
        for fd in (results, stderr, held):
            os.close(fd)
