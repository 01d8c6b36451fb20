"""Compile tttlab's numba functions once, into numba's disk cache, before ``make test``'s
parallel phase (the Makefile runs ``python tests/warm_numba.py``).

In a fresh clone the cache is empty: every process of the suite that reached a compiled
function before another process had written it to the cache compiled it again (about 9 s of
CPU for the first ``ttt solve`` or ``ttt train`` of a clone, 1 s once cached). Run once here,
beside mypy, the parallel phase starts with the cache written. Nothing is checked: the suite
tests every one of these calls.
"""

from __future__ import annotations

import time


def main() -> None:
    import tttlab

    started = time.perf_counter()
    tttlab.solve("3x3", method="table")
    tttlab.solve("4x4k4", method="search")
    for algorithm in ("td", "q", "sarsa", "expected-sarsa", "double-q"):
        tttlab.train(algorithm, episodes=20, seed=0, progress=False)
    tttlab.arena(["mcts", "perfect"], games=2)
    tttlab.evaluate("perfect")
    print(f"numba's cache written in {time.perf_counter() - started:.0f} s (tests/warm_numba.py)")


if __name__ == "__main__":
    main()
