"""Load test of `ttt serve` on loopback: concurrent clients playing whole games.

Starts `ttt serve` on a free 127.0.0.1 port, then runs CLIENTS clients at once; each plays
games against AGENT (its own move through /api/play, the agent's through /api/move) until it
has made MOVES requests, with a cap on the total time. Reports requests per second, the 50th
and 99th percentile latency and the number of errors. Traffic goes to 127.0.0.1 only.

Run:  .venv/bin/python benchmarks/load_web.py [--clients 50] [--moves 200] [--workers 2] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request

import httpx
import reference_course  # this folder's: the reference speed


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def client(
    base: str,
    agent: str,
    moves: int,
    seed: int,
    latencies: list[float],
    errors: list[str],
    deadline: float,
) -> None:
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        done = 0
        position = "........."
        while done < moves and time.monotonic() < deadline:
            empty = [i for i, c in enumerate(position) if c == "."]
            path, body = (
                ("/api/play", {"position": position, "move": rng.choice(empty)})
                if position.count("X") == position.count("O")
                else ("/api/move", {"position": position, "agent": agent})
            )
            started = time.perf_counter()
            try:
                response = await http.post(path, json=body)
            except httpx.HTTPError as error:
                errors.append(repr(error))
                continue
            latencies.append(time.perf_counter() - started)
            done += 1
            if response.status_code != 200:
                errors.append(f"{response.status_code} {response.text}")
                position = "........."
                continue
            data = response.json()
            position = "........." if data["result"] else data["position"]


async def run(base: str, clients: int, moves: int, agent: str, cap: float) -> dict[str, float]:
    latencies: list[float] = []
    errors: list[str] = []
    deadline = time.monotonic() + cap
    started = time.perf_counter()
    await asyncio.gather(
        *(client(base, agent, moves, i, latencies, errors, deadline) for i in range(clients))
    )
    seconds = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "requests": len(latencies),
        "seconds": round(seconds, 3),
        "requests_per_second": round(len(latencies) / seconds, 1),
        "p50_ms": round(1000 * ordered[len(ordered) // 2], 2),
        "p99_ms": round(1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 2),
        "errors": len(errors),
    }


def main() -> None:
    reference_course.announce()  # the machine's reference speed, beside the figures
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--agent", default="perfect")
    parser.add_argument("--cap", type=float, default=120.0, help="seconds at most")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tttlab",
            "serve",
            "--port",
            str(port),
            "--workers",
            str(args.workers),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/api/agents", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        report = asyncio.run(run(base, args.clients, args.moves, args.agent, args.cap))
    finally:
        server.terminate()
        server.wait(timeout=20)
    report.update(
        {
            "clients": args.clients,
            "moves_per_client": args.moves,
            "workers": args.workers,
            "agent": args.agent,
        }
    )
    if args.json:
        print(json.dumps(report))
    else:
        print(
            f"{args.clients} clients x {args.moves} moves against {args.agent}, "
            f"{args.workers} workers: {report['requests']:,} requests in {report['seconds']} s "
            f"= {report['requests_per_second']:,} moves/s; latency p50 {report['p50_ms']} ms, "
            f"p99 {report['p99_ms']} ms; errors: {report['errors']}"
        )


if __name__ == "__main__":
    main()
