"""Random-move self-play throughput of tttlab.vector against pgx's own tic_tac_toe.

Both environments run the same jitted loop: ``lax.scan`` over steps of a vmapped batch, a
uniformly random legal move per game, and finished games restarted in place. Two ways of
drawing the move are measured, because they cost very differently on a CPU:

- ``categorical`` (the headline): ``jax.random.categorical`` over masked logits, one Gumbel
  draw per cell, as pgx's examples do;
- ``choice``: one uniform number per game picks among its legal moves (a cumulative sum).

Throughput is steps (moves played, over the whole batch) and finished games per second,
after one warm-up run that compiles. Usage::

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
import jax.numpy as jnp

from tttlab.vector import make


def _choice(key: jax.Array, mask: jax.Array) -> jax.Array:
    legal = mask.astype(jnp.int32)
    count = legal.sum(axis=-1)
    u = jax.random.uniform(key, count.shape)
    nth = jnp.minimum((u * count).astype(jnp.int32), count - 1)
    return jnp.argmax(jnp.cumsum(legal, axis=-1) > nth[:, None], axis=-1)


def _categorical(key: jax.Array, mask: jax.Array) -> jax.Array:
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf), axis=-1)


PICKERS: dict[str, Callable[[jax.Array, jax.Array], jax.Array]] = {
    "choice": _choice,
    "categorical": _categorical,
}


def throughput(env: Any, batch: int, steps: int, picker: str) -> tuple[float, float]:
    """(steps per second, finished games per second) of random self-play."""
    init = jax.vmap(env.init)
    step = jax.vmap(env.step)
    pick = PICKERS[picker]

    def body(carry: Any, _: Any) -> Any:
        state, key = carry
        key, k_move, k_reset = jax.random.split(key, 3)
        state = step(state, pick(k_move, state.legal_action_mask))
        done = state.terminated
        fresh = init(jax.random.split(k_reset, batch))

        def restart(old: jax.Array, new: jax.Array) -> jax.Array:
            return jnp.where(done.reshape(done.shape + (1,) * (old.ndim - 1)), new, old)

        return (jax.tree_util.tree_map(restart, state, fresh), key), done.sum()

    @jax.jit
    def run(state: Any, key: jax.Array) -> Any:
        (state, _), finished = jax.lax.scan(body, (state, key), None, length=steps)
        return state, finished.sum()

    state = jax.jit(init)(jax.random.split(jax.random.PRNGKey(0), batch))
    jax.block_until_ready(run(state, jax.random.PRNGKey(1)))  # compile
    started = time.perf_counter()
    _, finished = jax.block_until_ready(run(state, jax.random.PRNGKey(2)))
    seconds = time.perf_counter() - started
    return batch * steps / seconds, int(finished) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="3x3k3")
    parser.add_argument("--min-log2", type=int, default=10)
    parser.add_argument("--max-log2", type=int, default=20)
    parser.add_argument(
        "--moves", type=float, default=3e7, help="moves per measurement (sets the steps)"
    )
    parser.add_argument("--pickers", default="categorical,choice")
    parser.add_argument("--no-pgx", action="store_true", help="skip pgx's tic_tac_toe")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    envs: dict[str, Any] = {f"tttlab {args.board}": make(args.board)}
    if not args.no_pgx and args.board in ("3x3", "3x3k3"):
        import pgx  # dev dependency: the benchmark's reference

        envs["pgx tic_tac_toe"] = pgx.make("tic_tac_toe")
    device = jax.devices()[0]
    rows: list[dict[str, Any]] = []
    for picker in args.pickers.split(","):
        for log2 in range(args.min_log2, args.max_log2 + 1):
            batch = 1 << log2
            steps = max(8, int(args.moves // batch))
            for name, env in envs.items():
                sps, gps = throughput(env, batch, steps, picker)
                row = {
                    "env": name,
                    "picker": picker,
                    "batch": batch,
                    "steps": steps,
                    "steps_per_second": round(sps),
                    "games_per_second": round(gps),
                }
                rows.append(row)
                if not args.json:
                    print(
                        f"{picker:<12} {name:<18} batch {batch:>9,}: "
                        f"{sps / 1e6:9.1f} M steps/s {gps / 1e6:8.2f} M games/s",
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
