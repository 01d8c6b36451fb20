"""Result: docs/guides/reliability.md, section 'Reliability guarantees'.

Ctrl-C at every moment of `ttt train q`'s start-up: none may be lost.

Sends SIGINT to `ttt train q --episodes 2000000000` at MOMENTS evenly spaced moments from
0.05 s to SPAN s after the start, REPEAT times each, with a fresh table cache each time (so
numba's kernels load, as in a fresh clone), and counts the runs that did not end with exit
code 130 within 60 s, or printed a traceback.

Run:  .venv/bin/python experiments/stress_interrupt.py [--moments 40] [--repeat 3] [--span 2.0]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time


def once(after: float) -> str | None:
    """What went wrong, or None."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "TTTLAB_CACHE_DIR": os.path.join(folder, "cache")}
        command = [sys.executable, "-m", "tttlab", "train", "q", "--episodes", "2000000000"]
        command += ["--seed", "0", "--out", os.path.join(folder, "early.npz")]
        proc = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        try:
            time.sleep(after)
            proc.send_signal(signal.SIGINT)
            _, stderr = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return "lost: still running 60 s later"
        if proc.returncode != 130:
            return f"exit code {proc.returncode}: {stderr.strip()[-200:]}"
        if "Traceback" in stderr or "Exception ignored" in stderr:
            return f"traceback: {stderr.strip()[-200:]}"
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--moments", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--span", type=float, default=2.0)
    args = parser.parse_args()
    step = (args.span - 0.05) / max(args.moments - 1, 1)
    moments = [0.05 + i * step for i in range(args.moments)]
    failures = []
    start = time.perf_counter()
    for repeat in range(args.repeat):
        for after in moments:
            problem = once(after)
            if problem is not None:
                failures.append(f"{after:.3f} s (round {repeat + 1}): {problem}")
    runs = args.moments * args.repeat
    print(f"{runs} runs, {len(failures)} lost or unclean, {time.perf_counter() - start:.0f} s")
    for failure in failures:
        print("  " + failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
