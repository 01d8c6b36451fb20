"""The lab's Check section on the server: ``GET /api/check`` says whether uploaded exercises
are graded here, ``POST /api/check`` grades one, as ``ttt check --json``.

A stranger's code runs only in a box (:mod:`tttlab.usercode.box`): where none can be made,
the server says so and runs nothing (503). The grading runs in the killable worker pool
(:mod:`tttlab.web.pool`), at most ``workers - 1`` files at once (one worker stays free for
play), and is stopped when the page goes away: the request's connection closes.

A grading's place is given back by the thread that did its work, once that work has ended
(its worker killed, when its page went away), never before: no more boxes run than there
are places. Stopping takes a moment, longer on a busy machine, so an upload that finds every
place taken, some by gradings being stopped, waits for one of those (up to
:data:`STOPPING_SECONDS`) instead of being refused.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from fastapi import FastAPI, Request

from tttlab.usercode import box
from tttlab.web.compute import ApiError
from tttlab.web.models import ERRORS, MAX_SOURCE, CheckInfo, CheckRequest
from tttlab.web.pool import Pool

__all__ = ["CHECK_SECONDS", "MAX_UPLOAD", "STOPPING_SECONDS", "Places", "add_check_routes"]

#: Largest body of an uploaded exercise, in bytes: its text as JSON, where a character may
#: take 6 bytes (``\\udbc2``), so that a text too long is refused by its length (422).
MAX_UPLOAD = 8 * MAX_SOURCE
#: Seconds the grading of one uploaded file may take (``ttt check --time-limit``).
CHECK_SECONDS = 60.0
#: Seconds an upload waits for the place of a grading that is being stopped.
STOPPING_SECONDS = 30.0


class Places:
    """The gradings that may run at once. :meth:`take` gives a :class:`Grading` a place;
    the place comes back when its work has ended (:meth:`Grading.run`'s thread)."""

    def __init__(self, places: int) -> None:
        self.free = places
        self.stopping = 0  # gradings asked to stop whose work has not ended yet
        self.lock = threading.Lock()

    def take(self) -> Grading | None:
        """A place, or None when every place is taken."""
        with self.lock:
            if self.free == 0:
                return None
            self.free -= 1
            return Grading(self)

    async def wait(self, seconds: float) -> Grading | None:
        """A place, waiting up to ``seconds`` while a grading that holds one is stopping;
        None at once when every grading that holds a place is running."""
        deadline = time.monotonic() + seconds
        while True:
            taken = self.take()
            if taken is not None:
                return taken
            with self.lock:
                stopping = self.stopping
            if not stopping or time.monotonic() >= deadline:
                return None
            await asyncio.sleep(0.05)


class Grading:
    """One grading's place and its stop: :meth:`stop` asks its work to stop (the pool kills
    its worker), :meth:`run` does the work and gives the place back once it has ended."""

    def __init__(self, places: Places) -> None:
        self.places = places
        self.cancel = threading.Event()
        self.stopping = False
        self.ended = False

    def stop(self) -> None:
        with self.places.lock:
            if not self.stopping and not self.ended:
                self.stopping = True
                self.places.stopping += 1
            self.cancel.set()

    def run(self, work: Callable[[threading.Event], Any]) -> Callable[[], Any]:
        """``work(cancel)``, as a call for a thread, that gives the place back when done."""

        def call() -> Any:
            try:
                return work(self.cancel)
            finally:
                with self.places.lock:
                    self.ended = True
                    self.places.free += 1
                    if self.stopping:
                        self.places.stopping -= 1

        return call


def add_check_routes(
    app: FastAPI,
    pool: Pool,
    in_thread: Callable[[str, Callable[[], Any]], Awaitable[Any]],
    workers: int,
) -> None:
    """The two routes, on ``app``: work in ``pool``, waits in ``in_thread``'s threads."""
    places = Places(max(1, workers - 1))

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
        grading = await places.wait(STOPPING_SECONDS)
        if grading is None:
            raise ApiError(503, "as many files as this server grades at once are being graded")
        args: dict[str, Any] = {"source": body.source, "name": body.name, "only": body.only}
        args["seconds"] = CHECK_SECONDS
        work = partial(pool.call, "check", args, CHECK_SECONDS + 60)
        task = asyncio.ensure_future(in_thread("work", grading.run(work)))
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=0.25)
                if not task.done() and await request.is_disconnected():
                    grading.stop()
            return dict(await task)
        finally:
            grading.stop()  # the request ended first (cancelled): so does its work
