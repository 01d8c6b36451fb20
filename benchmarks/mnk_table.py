"""The published values of m,n,k-games, reproduced by ``ttt solve``: one fresh process per
board, the whole command timed, its peak memory read from the kernel.

The published values (Uiterwijk and van den Herik, "The advantage of the initiative",
Information Sciences 122, 2000; Hsu et al., "On solving the 7,7,5-game and the 8,8,5-game",
Theoretical Computer Science 815, 2020; ../shared/FACTS.md):

- k = 3: 3,3,3 is a draw; every larger board is a first-player win;
- k = 4: 4,4,4, m,4,4 for m <= 8, and 5,5,4 are draws; 6,5,4 and every board with m >= 6
  and n >= 5 are first-player wins;
- k = 5: every board up to 6x6 is a draw; so is 7,7,5.

Each board is printed with its published value beside the result. A disagreement is an
error (exit status 1); a board whose proof did not finish within ``--time-limit`` is
reported as such (exit status 3 when any did, and no disagreement).

With ``--certificates`` each board's proof is also written as a certificate
(``ttt solve --certificate``) and checked by ``ttt verify``, each in a fresh process: the
certificate's size (positions with a move, bytes) and both commands' times are reported.
Certificates have zones (version 3) but on the boards of ``--no-zones`` (7x4k4 and 8x4k4:
long thin boards, whose positions transpose so much that zones make theirs bigger).

Run:  .venv/bin/python benchmarks/mnk_table.py [--time-limit 600] [--boards 6x5k4,8x4k4]
      [--certificates [--no-zones 7x4k4,8x4k4]] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import reference_course  # this folder's: the reference speed

# (board, published value from X's side)
PUBLISHED: list[tuple[str, int]] = [
    ("3x3k3", 0),
    ("4x3k3", 1),
    ("4x4k3", 1),
    ("4x4k4", 0),
    ("5x4k4", 0),
    ("6x4k4", 0),
    ("7x4k4", 0),
    ("8x4k4", 0),
    ("5x5k4", 0),
    ("6x5k4", 1),
    ("6x6k4", 1),
    ("7x5k4", 1),
    ("5x5k5", 0),
    ("6x5k5", 0),
    ("6x6k5", 0),
    ("7x7k5", 0),
]
WORDS = {1: "X wins", 0: "draw", -1: "O wins"}


def solve(board: str, time_limit: float, memory_mb: int | None) -> dict[str, Any]:
    """``ttt solve --engine search --json`` on ``board`` in a fresh process."""
    rows, rest = board.split("x")
    cols, k = rest.split("k")
    argv = [sys.executable, "-m", "tttlab", "solve", "--board", f"{rows}x{cols}", "--k", k]
    argv += ["--engine", "search", "--json", "--time-limit", f"{time_limit:g}"]
    if memory_mb is not None:
        argv += ["--memory", str(memory_mb)]
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stderr is not None
    out, err = child.stdout.read(), child.stderr.read()  # a line or two each
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak memory
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    row: dict[str, Any] = {"board": board, "command_seconds": round(seconds, 2)}
    row["peak_mib"] = round(usage.ru_maxrss / 1024)
    if child.returncode == 0:
        data = json.loads(out)
        row.update(value=data["value"], nodes=data["nodes"], search_seconds=data["seconds"])
        row.update(table_entries=data["table_entries"], best_move=data.get("best_move"))
    else:
        row["error"] = err.strip().splitlines()[-1] if err.strip() else f"exit {child.returncode}"
    return row


def certify(board: str, time_limit: float, memory_mb: int | None, zones: bool) -> dict[str, Any]:
    """``ttt solve --certificate FILE`` then ``ttt verify FILE``, each in a fresh process."""
    rows, rest = board.split("x")
    cols, k = rest.split("k")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{board}.json"
        argv = [sys.executable, "-m", "tttlab", "solve", "--board", f"{rows}x{cols}", "--k", k]
        argv += ["--engine", "search", "--json", "--time-limit", f"{time_limit:g}"]
        argv += ["--certificate", str(path), "--zones" if zones else "--no-zones"]
        if memory_mb is not None:
            argv += ["--memory", str(memory_mb)]
        started = time.perf_counter()
        built = subprocess.run(argv, capture_output=True, text=True, check=False)
        row: dict[str, Any] = {"build_seconds": round(time.perf_counter() - started, 2)}
        if built.returncode != 0:
            lines = built.stderr.strip().splitlines()
            row["certificate_error"] = lines[-1] if lines else f"exit {built.returncode}"
            return row
        data = json.loads(built.stdout)["certificate"]
        row.update(moves=data["moves"], bytes=path.stat().st_size, zones=zones)
        started = time.perf_counter()
        checked = subprocess.run(
            [sys.executable, "-m", "tttlab", "verify", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        row["verify_seconds"] = round(time.perf_counter() - started, 2)
        if checked.returncode != 0:
            lines = (checked.stderr or checked.stdout).strip().splitlines()
            row["certificate_error"] = "verify: " + (lines[-1] if lines else "no output")
        return row


def main() -> int:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--memory", type=int, default=None, help="MiB for the table")
    parser.add_argument("--boards", default=None, help="a comma-separated subset")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--certificates", action="store_true", help="write and verify each board's certificate"
    )
    parser.add_argument(
        "--no-zones", default="7x4k4,8x4k4", help="boards certified without zones (version 2)"
    )
    args = parser.parse_args()
    plain = set(args.no_zones.split(",")) if args.no_zones else set()
    wanted = set(args.boards.split(",")) if args.boards else None
    rows: list[dict[str, Any]] = []
    disagree = unproved = 0
    for board, published in PUBLISHED:
        if wanted is not None and board not in wanted:
            continue
        row = {"published": published, **solve(board, args.time_limit, args.memory)}
        if "value" in row and row["value"] != published:
            disagree += 1
            row["error"] = f"DISAGREES with the published value ({WORDS[published]})"
        elif "value" not in row:
            unproved += 1
        if args.certificates and "error" not in row:
            row.update(certify(board, args.time_limit, args.memory, board not in plain))
            unproved += "certificate_error" in row
        rows.append(row)
        if not args.json:
            if "value" in row and "error" not in row:
                print(
                    f"{board:<6} {WORDS[row['value']]:<7} (published: {WORDS[published]:<7}) "
                    f"{row['nodes']:>13,} nodes {row['search_seconds']:>9.2f} s search "
                    f"{row['command_seconds']:>8.2f} s command {row['peak_mib']:>6,} MiB peak",
                    flush=True,
                )
            else:
                print(f"{board:<6} (published: {WORDS[published]:<7}) {row['error']}", flush=True)
            if "certificate_error" in row:
                print(f"{'':<6} certificate: {row['certificate_error']}", flush=True)
            elif "moves" in row:
                print(
                    f"{'':<6} certificate: {row['moves']:>11,} positions {row['bytes']:>13,} bytes "
                    f"{row['build_seconds']:>8.2f} s build {row['verify_seconds']:>8.2f} s verify"
                    f"{'' if row['zones'] else ' (no zones)'}",
                    flush=True,
                )
    if args.json:
        print(json.dumps({"time_limit": args.time_limit, "rows": rows}, indent=2))
    if disagree:
        print(f"{disagree} board(s) disagree with the published values", file=sys.stderr)
        return 1
    return 3 if unproved else 0


if __name__ == "__main__":
    sys.exit(main())
