"""Random-move self-play throughput of tttlab.vector against pgx's own tic_tac_toe, measured
the way pgx's benchmarks and examples run an environment, and the way a user restarts games.

Both environments run the very same code: pgx's ``act_randomly`` (``jax.random.categorical``
over the log of the legal-move mask), then one of two restarts of a finished game:

- ``auto_reset``: pgx's ``auto_reset(env.step, env.init)`` wrapper, vmapped (a finished game,
  ``terminated | truncated``, restarts from ``init`` with a key of its own);
- ``where``: the plain restart loop, ``vmap(env.step)`` and then
  ``jax.tree.map(lambda a, b: jnp.where(done, a, b), init_state, state)`` per game, over every
  field of the state, against the initial states the run began from (``done`` is
  ``terminated``). This costs as much as the state is large.

Each in two forms:

- ``loop``: pgx's benchmark (``benchmarks/`` in pgx's repository): jitted ``vmap(init)`` and
  one jitted move (the action, the step, the restart), called from Python step by step, with
  the keys split between the calls;
- ``scan``: the whole run in one ``jit``, as pgx's AlphaZero example runs self-play:
  ``init`` traced inside it, then ``lax.scan`` over the steps.

A figure is steps (moves played, over the whole batch) and finished games per second, the
best of 3 timed runs after one that compiles; the environments take turns going first (the
first of each pair of rows alternates), and ``--rounds N`` runs everything N times over, since
one machine's speed varies between runs. Usage::

    .venv/bin/python benchmarks/bench_vector.py            # 3x3, batches 2^10 .. 2^20
    .venv/bin/python benchmarks/bench_vector.py --batches 1024,16384,262144 --rounds 3
    .venv/bin/python benchmarks/bench_vector.py --board 4x4k4 --no-pgx --json
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import reference_course  # this folder's: the reference speed
from pgx.experimental.utils import act_randomly
from pgx.experimental.wrappers import auto_reset

from tttlab.vector import make

REPEATS = 3


def restart_where(done: jax.Array, fresh: Any, state: Any) -> Any:
    """The plain restart a user writes: every field of a finished game (``done``, one flag a
    game) taken from ``fresh``, the batch's initial states, by one ``where`` per field."""
    return jax.vmap(lambda d, a, b: jax.tree.map(lambda x, y: jnp.where(d, x, y), a, b))(
        done, fresh, state
    )


def stepper(
    env: Any, batch: int, restart: str
) -> Callable[[Any, Any, jax.Array], tuple[Any, jax.Array]]:
    """One move of random self-play for the whole batch, ``(state, fresh, key) -> (state,
    games finished)``:
    pgx's ``act_randomly``, then the step with finished games restarted by pgx's
    ``auto_reset`` (``fresh`` unused: a finished game restarts from ``init`` with a key of its
    own) or by :func:`restart_where` (``step``, then a ``where`` over every field against
    ``fresh``, the initial states the run began from)."""
    if restart == "auto_reset":
        step = jax.vmap(auto_reset(env.step, env.init))

        def move(state: Any, fresh: Any, key: jax.Array) -> tuple[Any, jax.Array]:
            del fresh
            k_act, k_step = jax.random.split(key)
            action = act_randomly(k_act, state.legal_action_mask)
            state = step(state, action, jax.random.split(k_step, batch))
            return state, state.terminated.sum()

        return move
    plain = jax.vmap(env.step)

    def move_where(state: Any, fresh: Any, key: jax.Array) -> tuple[Any, jax.Array]:
        state = plain(state, act_randomly(key, state.legal_action_mask))
        return restart_where(state.terminated, fresh, state), state.terminated.sum()

    return move_where


def _loop(
    env: Any, batch: int, steps: int, restart: str = "auto_reset"
) -> Callable[[int], tuple[float, int | None]]:
    init = jax.jit(jax.vmap(env.init))
    move = jax.jit(stepper(env, batch, restart))

    def run(seed: int) -> tuple[float, int | None]:
        key = jax.random.PRNGKey(seed)
        key, subkey = jax.random.split(key)
        state = fresh = jax.block_until_ready(init(jax.random.split(subkey, batch)))
        started = time.perf_counter()
        for _ in range(steps):
            key, k_move = jax.random.split(key)
            state, _ = move(state, fresh, k_move)
        jax.block_until_ready(state)
        return time.perf_counter() - started, None  # pgx's loop counts no games

    return run


def scan_program(
    env: Any, batch: int, steps: int, restart: str = "auto_reset"
) -> jax.stages.Wrapped:
    """The scan form's whole run as one jitted function of a key: ``init`` traced inside it,
    then ``lax.scan`` over ``steps`` random moves; it returns the games finished."""
    move = stepper(env, batch, restart)

    @jax.jit
    def whole(key: jax.Array) -> jax.Array:
        key, subkey = jax.random.split(key)
        fresh = jax.vmap(env.init)(jax.random.split(subkey, batch))

        def body(state: Any, key: jax.Array) -> tuple[Any, jax.Array]:
            return move(state, fresh, key)

        _, finished = jax.lax.scan(body, fresh, jax.random.split(key, steps))
        return finished.sum()

    return whole


def _scan(
    env: Any, batch: int, steps: int, restart: str = "auto_reset"
) -> Callable[[int], tuple[float, int | None]]:
    whole = scan_program(env, batch, steps, restart)

    def run(seed: int) -> tuple[float, int | None]:
        started = time.perf_counter()
        finished = int(jax.block_until_ready(whole(jax.random.PRNGKey(seed))))
        return time.perf_counter() - started, finished

    return run


FORMS = {"loop": _loop, "scan": _scan}
RESTARTS = ("auto_reset", "where")


def throughput(
    env: Any, batch: int, steps: int, form: str, repeats: int = REPEATS, restart: str = "auto_reset"
) -> tuple[float, float | None]:
    """(steps per second, finished games per second, or None where the form counts none) of
    random self-play: the best of ``repeats`` timed runs, after one that compiles."""
    run = FORMS[form](env, batch, steps, restart)
    run(0)  # compiles
    seconds, finished = min((run(seed) for seed in range(1, repeats + 1)), key=lambda r: r[0])
    return batch * steps / seconds, None if finished is None else finished / seconds


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="3x3k3")
    parser.add_argument("--min-log2", type=int, default=10)
    parser.add_argument("--max-log2", type=int, default=20)
    parser.add_argument("--batches", help="batches to run, e.g. 1024,16384 (instead of the log2s)")
    parser.add_argument(
        "--moves", type=float, default=3e7, help="moves per measurement (sets the steps)"
    )
    parser.add_argument("--forms", default="scan,loop")
    parser.add_argument("--restarts", default="auto_reset,where", help=f"of {', '.join(RESTARTS)}")
    parser.add_argument("--rounds", type=int, default=1, help="passes over everything")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="timed runs per figure")
    parser.add_argument("--no-pgx", action="store_true", help="skip pgx's tic_tac_toe")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.batches:
        batches = [int(b) for b in args.batches.split(",")]
    else:
        batches = [1 << log2 for log2 in range(args.min_log2, args.max_log2 + 1)]

    envs: list[tuple[str, Any]] = [(f"tttlab {args.board}", make(args.board))]
    if not args.no_pgx and args.board in ("3x3", "3x3k3"):
        import pgx  # dev dependency: the benchmark's reference

        envs.append(("pgx tic_tac_toe", pgx.make("tic_tac_toe")))
    device = jax.devices()[0]
    rows: list[dict[str, Any]] = []
    plan = itertools.product(
        range(1, args.rounds + 1), args.forms.split(","), args.restarts.split(","), batches
    )
    for turn, (round_, form, restart, batch) in enumerate(plan, start=1):
        steps = max(16, int(args.moves // batch))
        for name, env in envs[turn % len(envs) :] + envs[: turn % len(envs)]:
            sps, gps = throughput(env, batch, steps, form, args.repeats, restart)
            row = {
                "env": name,
                "form": form,
                "restart": restart,
                "round": round_,
                "batch": batch,
                "steps": steps,
                "steps_per_second": round(sps),
                "games_per_second": None if gps is None else round(gps),
            }
            rows.append(row)
            if not args.json:
                print(
                    f"{form:<5} {restart:<10} {name:<18} batch {batch:>9,}: "
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
