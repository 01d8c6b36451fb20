"""Random-move self-play throughput of tttlab.vector against pgx's own tic_tac_toe, measured
the way pgx's benchmarks and examples run an environment.

Both environments run the very same code: pgx's ``auto_reset(env.step, env.init)`` wrapper,
vmapped (a finished game, ``terminated | truncated``, restarts from ``init`` with a key of its
own), and pgx's ``act_randomly`` (``jax.random.categorical`` over the log of the legal-move
mask). Two forms:

- ``loop``: pgx's benchmark (``benchmarks/`` in pgx's repository): jitted ``vmap(init)``,
  ``vmap(auto_reset(step, init))`` and ``act_randomly``, called from Python step by step,
  with the keys split between the calls;
- ``scan``: the whole run in one ``jit``, as pgx's AlphaZero example runs self-play:
  ``init`` traced inside it, then ``lax.scan`` over the steps.

A figure is steps (moves played, over the whole batch) and finished games per second, the
best of 3 timed runs after one that compiles; the environments take turns going first (the
first of each pair of rows alternates). Usage::

    .venv/bin/python benchmarks/bench_vector.py            # 3x3, batches 2^10 .. 2^20
    .venv/bin/python benchmarks/bench_vector.py --board 4x4k4 --no-pgx --json
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from typing import Any

import jax
from pgx.experimental.utils import act_randomly
from pgx.experimental.wrappers import auto_reset

from tttlab.vector import make

REPEATS = 3


def _loop(env: Any, batch: int, steps: int) -> Callable[[int], tuple[float, int | None]]:
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    act = jax.jit(act_randomly)

    def run(seed: int) -> tuple[float, int | None]:
        key = jax.random.PRNGKey(seed)
        key, subkey = jax.random.split(key)
        state = jax.block_until_ready(init(jax.random.split(subkey, batch)))
        started = time.perf_counter()
        for _ in range(steps):
            key, k_act, k_step = jax.random.split(key, 3)
            action = act(k_act, state.legal_action_mask)
            state = step(state, action, jax.random.split(k_step, batch))
        jax.block_until_ready(state)
        return time.perf_counter() - started, None  # pgx's loop counts no games

    return run


def scan_program(env: Any, batch: int, steps: int) -> jax.stages.Wrapped:
    """The scan form's whole run as one jitted function of a key: ``init`` traced inside it,
    then ``lax.scan`` over ``steps`` random moves; it returns the games finished."""
    step = jax.vmap(auto_reset(env.step, env.init))

    def body(state: Any, key: jax.Array) -> tuple[Any, jax.Array]:
        k_act, k_step = jax.random.split(key)
        action = act_randomly(k_act, state.legal_action_mask)
        state = step(state, action, jax.random.split(k_step, batch))
        return state, state.terminated.sum()

    @jax.jit
    def whole(key: jax.Array) -> jax.Array:
        key, subkey = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(subkey, batch))
        _, finished = jax.lax.scan(body, state, jax.random.split(key, steps))
        return finished.sum()

    return whole


def _scan(env: Any, batch: int, steps: int) -> Callable[[int], tuple[float, int | None]]:
    whole = scan_program(env, batch, steps)

    def run(seed: int) -> tuple[float, int | None]:
        started = time.perf_counter()
        finished = int(jax.block_until_ready(whole(jax.random.PRNGKey(seed))))
        return time.perf_counter() - started, finished

    return run


FORMS = {"loop": _loop, "scan": _scan}


def throughput(
    env: Any, batch: int, steps: int, form: str, repeats: int = REPEATS
) -> tuple[float, float | None]:
    """(steps per second, finished games per second, or None where the form counts none) of
    random self-play: the best of ``repeats`` timed runs, after one that compiles."""
    run = FORMS[form](env, batch, steps)
    run(0)  # compiles
    seconds, finished = min((run(seed) for seed in range(1, repeats + 1)), key=lambda r: r[0])
    return batch * steps / seconds, None if finished is None else finished / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="3x3k3")
    parser.add_argument("--min-log2", type=int, default=10)
    parser.add_argument("--max-log2", type=int, default=20)
    parser.add_argument(
        "--moves", type=float, default=3e7, help="moves per measurement (sets the steps)"
    )
    parser.add_argument("--forms", default="scan,loop")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="timed runs per figure")
    parser.add_argument("--no-pgx", action="store_true", help="skip pgx's tic_tac_toe")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    envs: list[tuple[str, Any]] = [(f"tttlab {args.board}", make(args.board))]
    if not args.no_pgx and args.board in ("3x3", "3x3k3"):
        import pgx  # dev dependency: the benchmark's reference

        envs.append(("pgx tic_tac_toe", pgx.make("tic_tac_toe")))
    device = jax.devices()[0]
    rows: list[dict[str, Any]] = []
    turn = 0
    for form in args.forms.split(","):
        for log2 in range(args.min_log2, args.max_log2 + 1):
            batch = 1 << log2
            steps = max(16, int(args.moves // batch))
            turn += 1
            for name, env in envs[turn % len(envs) :] + envs[: turn % len(envs)]:
                sps, gps = throughput(env, batch, steps, form, args.repeats)
                row = {
                    "env": name,
                    "form": form,
                    "batch": batch,
                    "steps": steps,
                    "steps_per_second": round(sps),
                    "games_per_second": None if gps is None else round(gps),
                }
                rows.append(row)
                if not args.json:
                    print(
                        f"{form:<5} {name:<18} batch {batch:>9,}: "
                        f"{sps / 1e6:9.1f} M steps/s"
                        + ("" if gps is None else f" {gps / 1e6:8.2f} M games/s"),
                        flush=True,
                    )
    if args.json:
        info = {
            "device": f"{device.platform}: {device.device_kind}",
            "cpu": platform.processor() or platform.machine(),
            "jax": jax.__version__,
        }
        print(json.dumps({"machine": info, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
