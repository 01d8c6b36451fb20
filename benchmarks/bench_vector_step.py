"""How tttlab.vector's ``step`` is written, each choice timed against pgx's tic_tac_toe on
this machine's own backend (a CPU and a GPU need not agree).

Five choices (the class attributes ``_write``, ``_cells``, ``_win``, ``_legal`` and ``_full`` of
``benchmarks/vector_ways.py``'s ``WaysEnv``; ``tttlab.vector.Env`` is the defaults), every
combination that ``--grid`` leaves open: the stone written by a scatter, by a
one-hot ``where`` or cell by cell; int8 or int32 cells; a win read by one gather of every
line's cells, or by each line's cells picked out one at a time (static slices); the occupied
test read from a one-hot of the action (a reduction over the cells) or by indexing the cell; a
full board from the move count or from the new board's cells. Each is measured as
``bench_vector.py`` measures (pgx's ``act_randomly``, pgx's ``auto_reset`` or with ``--restart
where`` the plain ``where`` restart, the best of ``--repeats`` timed runs after one that
compiles), in the scan form by default, and the
environments take turns going first. With ``--kernels`` it also counts the kernels XLA launches
for one step of the scan (the top-level ops of the compiled loop's body: fusions, copies, a
scatter or gather left on its own), which is what a small batch pays for on a GPU. Usage::

    .venv/bin/python benchmarks/bench_vector_step.py --batches 1024,16384,262144
    .venv/bin/python benchmarks/bench_vector_step.py --kernels --grid "cells=int8 win=slices"
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from pathlib import Path
from typing import Any

import jax

sys.path.insert(0, str(Path(__file__).parent))
import bench_vector
import reference_course  # this folder's: the reference speed
from vector_ways import CHOICES, variant


def grid(spec: str) -> list[dict[str, str]]:
    """Every combination of ``spec``'s choices (``"write=scatter,onehot cells=int8"``; a
    choice not named takes every value in :data:`CHOICES`); grids joined by ``|`` are tried
    one after the other."""
    if "|" in spec:
        return [choice for part in spec.split("|") for choice in grid(part)]
    given = dict(part.split("=", 1) for part in spec.split())
    unknown = set(given) - set(CHOICES)
    if unknown:
        raise SystemExit(f"bench_vector_step: unknown choice {sorted(unknown)[0]!r}")
    values = {k: given[k].split(",") if k in given else list(v) for k, v in CHOICES.items()}
    for name, chosen in values.items():
        wrong = [v for v in chosen if v not in CHOICES[name]]
        if wrong:
            known = ", ".join(CHOICES[name])
            raise SystemExit(f"bench_vector_step: {name}={wrong[0]!r} is not one of {known}")
    return [dict(zip(values, combo, strict=True)) for combo in itertools.product(*values.values())]


def kernels(env: Any, batch: int, dump: Path | None = None) -> int | None:
    """Top-level ops in the compiled body of one step of ``bench_vector.py``'s scan program
    (the kernels a GPU launches per step), or None where the compiled text has no loop body
    to read. ``dump``: a file to write the compiled program's text to."""
    program = bench_vector.scan_program(env, batch, 4)
    text = program.lower(jax.random.PRNGKey(0)).compile().as_text()
    if text is None:
        return None
    if dump is not None:
        dump.write_text(text)
    blocks = {
        m.group(2): m.group(3)
        for m in re.finditer(r"^(ENTRY )?%?([\w.\-]+) \(.*?\{\n(.*?)\n\}", text, re.S | re.M)
    }
    entry = next((b for b in re.finditer(r"^ENTRY %?([\w.\-]+)", text, re.M)), None)
    loop = entry and re.search(r"while\(.*?body=%?([\w.\-]+)", blocks.get(entry.group(1), ""))
    if not loop or loop.group(1) not in blocks:
        return None
    ops = re.findall(r"= (?:\(.*?\)|\S+) ([a-z][\w\-]*)\(", blocks[loop.group(1)])
    free = {"parameter", "get-tuple-element", "tuple", "constant", "bitcast", "fusion-done"}
    return sum(op not in free for op in ops)


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="3x3k3")
    parser.add_argument(
        "--grid", default="", help='the choices to try, e.g. "write=scatter,onehot cells=int8"'
    )
    parser.add_argument("--batches", default="1024,4096,16384,65536,262144,1048576")
    parser.add_argument(
        "--seconds", type=float, default=0.3, help="aimed length of one timed run (sets the steps)"
    )
    parser.add_argument("--rate", type=float, default=1e7, help="guessed steps/s for --seconds")
    parser.add_argument("--form", default="scan", choices=sorted(bench_vector.FORMS))
    parser.add_argument("--restart", default="auto_reset", choices=bench_vector.RESTARTS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kernels", action="store_true", help="count kernels per step too")
    parser.add_argument("--dump", type=Path, help="a folder for each compiled program's text")
    parser.add_argument("--no-pgx", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    envs: list[tuple[str, Any]] = [
        ("/".join(choice.values()), variant(args.board, **choice)) for choice in grid(args.grid)
    ]
    if not args.no_pgx and args.board in ("3x3", "3x3k3"):
        import pgx  # pgx's tic_tac_toe is the 3x3 board alone

        envs.append(("pgx", pgx.make("tic_tac_toe")))
    device = jax.devices()[0]
    rows: list[dict[str, Any]] = []
    if args.kernels:
        for name, env in envs:
            where = None
            if args.dump is not None:
                args.dump.mkdir(parents=True, exist_ok=True)
                where = args.dump / f"{name.replace('/', '_')}.hlo.txt"
            count = kernels(env, 1024, where)
            rows.append({"env": name, "kernels_per_step": count})
            if not args.json:
                print(f"kernels {name:<22} {count}", flush=True)
    for turn, batch in enumerate(int(b) for b in args.batches.split(",")):
        steps = max(16, int(args.seconds * args.rate / batch))
        order = envs[turn % len(envs) :] + envs[: turn % len(envs)]
        for name, env in order:
            sps, _ = bench_vector.throughput(
                env, batch, steps, args.form, args.repeats, args.restart
            )
            rows.append(
                {
                    "env": name,
                    "form": args.form,
                    "batch": batch,
                    "steps": steps,
                    "steps_per_second": round(sps),
                }
            )
            if not args.json:
                print(
                    f"{args.form} {name:<22} batch {batch:>9,}: {sps / 1e6:9.1f} M steps/s",
                    flush=True,
                )
        # the next batch's steps aim at --seconds with the fastest rate seen so far
        args.rate = max(
            args.rate, max(r["steps_per_second"] for r in rows if r.get("batch") == batch)
        )
    if args.json:
        info = {"device": f"{device.platform}: {device.device_kind}", "jax": jax.__version__}
        print(json.dumps({"machine": info, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
