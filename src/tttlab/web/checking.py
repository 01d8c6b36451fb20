"""The lab's Check section on the server: ``GET /api/check`` says whether uploaded exercises
are graded here, ``POST /api/check`` grades one, as ``ttt check --json``.

A stranger's code runs only in a box (:mod:`tttlab.usercode.box`): where none can be made,
the server says so and runs nothing (503). The grading runs in the killable worker pool
(:mod:`tttlab.web.pool`), at most ``workers - 1`` files at once (one worker stays free for
play), and is stopped when the page goes away: the request's connection closes.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from fastapi import FastAPI, Request

from tttlab.usercode import box
from tttlab.web.compute import ApiError
from tttlab.web.models import ERRORS, MAX_SOURCE, CheckInfo, CheckRequest
from tttlab.web.pool import Pool

__all__ = ["CHECK_SECONDS", "MAX_UPLOAD", "add_check_routes"]

#: Largest body of an uploaded exercise, in bytes: its text as JSON, where a character may
#: take 6 bytes (``\\udbc2``), so that a text too long is refused by its length (422).
MAX_UPLOAD = 8 * MAX_SOURCE
#: Seconds the grading of one uploaded file may take (``ttt check --time-limit``).
CHECK_SECONDS = 60.0


def add_check_routes(
    app: FastAPI,
    pool: Pool,
    in_thread: Callable[[str, Callable[[], Any]], Awaitable[Any]],
    workers: int,
) -> None:
    """The two routes, on ``app``: work in ``pool``, waits in ``in_thread``'s threads."""
    checking = threading.BoundedSemaphore(max(1, workers - 1))

    @app.get("/api/check", response_model=CheckInfo)
    async def check_info() -> dict[str, Any]:
        """Whether this server grades uploaded exercises: only in a box (bubblewrap)."""
        contained = await in_thread("control", box.isolation)
        return {
            "available": contained.boxed,
            "isolation": contained.describe,
            "max_chars": MAX_SOURCE,
            "time_limit": CHECK_SECONDS,
        }

    @app.post("/api/check", responses=ERRORS)
    async def check(body: CheckRequest, request: Request) -> dict[str, Any]:
        """Grade an exercise file, as ``ttt check --json``, in a box of its own, in a
        worker: the work is stopped when the page goes away (the connection closes)."""
        contained = await in_thread("control", box.isolation)
        if not contained.boxed:
            raise ApiError(503, f"this server runs no uploaded code: {contained.describe}")
        if not checking.acquire(blocking=False):
            raise ApiError(503, "as many files as this server grades at once are being graded")
        cancel = threading.Event()
        args: dict[str, Any] = {"source": body.source, "name": body.name, "only": body.only}
        args["seconds"] = CHECK_SECONDS
        call = partial(pool.call, "check", args, CHECK_SECONDS + 60, cancel)
        task = asyncio.ensure_future(in_thread("work", call))
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=0.25)
                if not task.done() and await request.is_disconnected():
                    cancel.set()
            return dict(await task)
        finally:
            cancel.set()  # the request ended first (cancelled): so does its work
            checking.release()
