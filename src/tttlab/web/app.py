"""The web lab and its JSON API (FastAPI). Games are stateless: the client sends the position.

Endpoints (documented by FastAPI's OpenAPI schema at ``/openapi.json`` and ``/docs``):

- ``GET /api/agents``: the built-in agents and every agent file in the agents folder;
- ``POST /api/play``: apply a person's move, validated;
- ``POST /api/move``: the agent's move, its values, the new position and the result;
- ``POST /api/values``: an agent's value of each empty cell (for the heat map);
- ``POST /api/exact``: the exact value of each move (perfect play);
- ``POST /api/evaluate``: the exact evaluation of an agent, as ``ttt eval --json``;
- ``POST /api/mistakes``: the positions counted against an agent's optimal share;
- ``POST /api/arena``: a round robin, as ``ttt arena --json``;
- ``GET /api/check``, ``POST /api/check``: whether uploaded exercises are graded here (only
  in a box), and the grading of one, as ``ttt check --json``;
- ``POST /api/train``, ``GET /api/train``, ``GET /api/train/{job}/events`` (Server-Sent
  Events), ``DELETE /api/train/{job}``: training jobs (see :mod:`tttlab.web.jobs`).

Every bad input is a 4xx with ``{"error": "one line"}``; bodies are limited in size. Agent
work runs in worker processes (:mod:`tttlab.web.pool`) and is ended at the time limit.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from importlib.resources import files
from pathlib import Path
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from tttlab import __version__
from tttlab.errors import TttlabError
from tttlab.game import DEFAULT, Geometry, Position, estimate_positions
from tttlab.hyperparameters import LEARNERS, NETWORK_LEARNERS, defaults, describe
from tttlab.limits import (
    SERVER_PLAYS_CANDIDATES,
    SERVER_SEARCH_CELLS,
    SERVER_TABLE_CANDIDATES,
    SERVER_TRAINING_EPISODES,
)
from tttlab.render import board_svg
from tttlab.web.checking import add_check_routes
from tttlab.web.compute import ApiError, state
from tttlab.web.jobs import Jobs, available, check_algorithm, hyperparameter_arguments
from tttlab.web.middleware import BodyLimit
from tttlab.web.models import (
    ERRORS,
    AgentRequest,
    AgentsResponse,
    ArenaRequest,
    EvaluateRequest,
    ExactRequest,
    ExactResponse,
    JobInfo,
    JobsResponse,
    JobStarted,
    MistakesRequest,
    MoveResponse,
    PlayRequest,
    SvgRequest,
    TrainRequest,
    ValuesResponse,
)
from tttlab.web.models import State as StateBody
from tttlab.web.pool import Pool

__all__ = ["create_app"]

T = TypeVar("T")

#: Episodes of one training job unless ``ttt serve --max-episodes`` says otherwise.
MAX_EPISODES = SERVER_TRAINING_EPISODES


def _geometry(board: str | None, position: str | None = None) -> Geometry:
    """The board of a request (a bad one is a 400, through the TttlabError handler)."""
    if board is None:
        if position is not None and "/" in position:
            return Position.from_string(position).geometry
        return DEFAULT
    geometry = Geometry.parse(board)
    too_many = estimate_positions(geometry) > SERVER_PLAYS_CANDIDATES
    if too_many and geometry.cells > SERVER_SEARCH_CELLS:
        raise ApiError(400, f"{geometry.name} is larger than this server plays")
    return geometry


def _tables(geometry: Geometry, what: str) -> None:
    """Refuse work that needs the full table of a board too big for this server."""
    if estimate_positions(geometry) > SERVER_TABLE_CANDIDATES:
        raise ApiError(400, f"{what} of {geometry.name} is too large for this server")


def _train_options() -> dict[str, Any]:
    """Every learner with its hyperparameters (from their one declaration) and whether this
    install can train it: the lab's form is built from this."""
    return {
        "algorithms": {
            name: {
                "available": available(name),
                "family": "network" if name in NETWORK_LEARNERS else "table",
                "hyperparameters": describe(name),
                "defaults": defaults(name),
            }
            for name in LEARNERS
        }
    }


class _Threads:
    """Thread pools by kind, made on first use and again after :meth:`close` (an app may
    live through several lifespans, as under a test client)."""

    def __init__(self, sizes: dict[str, int]) -> None:
        self.sizes = sizes
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._lock = threading.Lock()

    def get(self, kind: str) -> ThreadPoolExecutor:
        with self._lock:
            if kind not in self._pools:
                self._pools[kind] = ThreadPoolExecutor(self.sizes[kind], thread_name_prefix=kind)
            return self._pools[kind]

    def close(self) -> None:
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            pool.shutdown(wait=False, cancel_futures=True)


def create_app(
    agents_dir: Path | None = None,
    timeout: float = 10.0,
    *,
    jobs: int = 1,
    max_episodes: int = MAX_EPISODES,
    workers: int = 2,
) -> FastAPI:
    """The FastAPI application. ``agents_dir`` holds agent files (``*.npz``) to offer and
    receives trained ones; ``jobs`` training jobs may run at once, each of at most
    ``max_episodes``; ``workers`` processes do agent work, each call within ``timeout`` s."""
    folder = None if agents_dir is None else agents_dir.resolve()
    where = None if folder is None else str(folder)
    pool = Pool(workers)
    trainers = Jobs(folder, jobs, max_episodes)
    # Waits for agent work (up to its time limit) and waits for a job to stop each have
    # threads of their own: slow requests never hold up DELETE or shutdown. Neither uses
    # the event loop's default executor, which other libraries share.
    threads = _Threads({"work": max(8, 4 * workers), "control": 4})

    async def in_thread(kind: str, call: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(threads.get(kind), call)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        pool.start()
        try:
            yield
        finally:
            # Stop training as DELETE does, so what the jobs learned is kept.
            await in_thread("control", trainers.stop_all)
            pool.close()
            threads.close()

    app = FastAPI(
        title="tttlab",
        version=__version__,
        description="Train, play, inspect and compare tic-tac-toe agents. Moves are 0-based "
        "row-major cells.",
        lifespan=lifespan,
    )
    app.mount(
        "/static",
        StaticFiles(directory=str(files("tttlab.web").joinpath("static"))),
        name="static",
    )

    async def work(name: str, **args: Any) -> Any:
        return await in_thread("work", partial(pool.call, name, args, timeout))

    async def agent_work(name: str, **args: Any) -> dict[str, Any]:
        """Work on the agents of this server's folder, in a worker."""
        return dict(await work(name, folder=where, **args))

    app.add_middleware(BodyLimit)

    @app.exception_handler(TttlabError)
    async def refused(request: Request, error: TttlabError) -> JSONResponse:
        """An ApiError says its status; any other refusal of tttlab's is a bad request."""
        status = error.status if isinstance(error, ApiError) else 400
        return JSONResponse({"error": str(error).splitlines()[0]}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {"msg": "invalid request", "loc": ()}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        message = f"{where}: {first['msg']}" if where else str(first["msg"])
        if first.get("type") == "json_invalid":
            message = "the request body is not valid JSON"
        return JSONResponse({"error": message}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        # Keep the exception's headers: a 405 must say which methods are allowed, and
        # Starlette names only the first route of a path (/api/train has GET and POST).
        headers = dict(getattr(error, "headers", None) or {})
        if error.status_code == 405:
            allowed = sorted(
                {
                    method
                    for route in app.routes
                    if isinstance(route, APIRoute) and route.path_regex.match(request.url.path)
                    for method in route.methods or ()
                }
            )
            if allowed:
                headers["Allow"] = ", ".join(allowed)
        return JSONResponse(
            {"error": str(error.detail)}, status_code=error.status_code, headers=headers or None
        )

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page() -> str:
        return files("tttlab.web").joinpath("static/index.html").read_text(encoding="utf-8")

    @app.get("/api/agents", response_model=AgentsResponse, responses={503: ERRORS[503]})
    async def list_agents() -> dict[str, Any]:
        return {"agents": await work("agents", folder=where)}

    @app.post("/api/play", response_model=StateBody, responses=ERRORS)
    def play(body: PlayRequest) -> dict[str, Any]:
        position = Position.from_string(body.position, _geometry(body.board, body.position))
        if position.is_terminal:
            raise ApiError(409, f"the game is over ({position.outcome})")
        return state(position.apply(body.move))

    def _checked(board: str | None, position: str) -> tuple[str, str]:
        geometry = _geometry(board, position)
        found = Position.from_string(position, geometry)
        if found.is_terminal:
            raise ApiError(409, f"the game is over ({found.outcome})")
        return geometry.name, found.to_string()

    @app.post("/api/move", response_model=MoveResponse, responses=ERRORS)
    async def move(body: AgentRequest) -> dict[str, Any]:
        board, position = _checked(body.board, body.position)
        return await agent_work("move", agent=body.agent, board=board, position=position)

    @app.post("/api/values", response_model=ValuesResponse, responses=ERRORS)
    async def values(body: AgentRequest) -> dict[str, Any]:
        board, position = _checked(body.board, body.position)
        return await agent_work("values", agent=body.agent, board=board, position=position)

    @app.post("/api/exact", response_model=ExactResponse, responses=ERRORS)
    async def exact(body: ExactRequest) -> dict[str, Any]:
        """Perfect play's value of each legal move, for the side to move: +1 a win, 0 a
        draw, −1 a loss. A move worth less than the position gives the game away."""
        board, position = _checked(body.board, body.position)
        return dict(await work("exact", board=board, position=position))

    @app.post(
        "/api/svg",
        response_class=Response,
        responses={**ERRORS, 200: {"content": {"image/svg+xml": {}}}},
    )
    async def svg(body: SvgRequest) -> Response:
        """The board as SVG: the same drawing as notebooks (``tttlab.render.board_svg``)."""
        position = Position.from_string(body.position, _geometry(body.board))
        return Response(board_svg(position), media_type="image/svg+xml")

    add_check_routes(app, pool, in_thread, workers)

    @app.post("/api/evaluate", responses=ERRORS)
    async def evaluate_agent(body: EvaluateRequest) -> dict[str, Any]:
        geometry = _geometry(body.board)
        _tables(geometry, "exact evaluation")
        return await agent_work("evaluate", agent=body.agent, board=geometry.name)

    @app.post("/api/mistakes", responses=ERRORS)
    async def list_mistakes(body: MistakesRequest) -> dict[str, Any]:
        """The positions where the agent may play a move that loses value (what ``ttt eval``
        counts against its optimal share), most likely first against a random opponent."""
        geometry = _geometry(body.board)
        _tables(geometry, "the exact list of mistakes")
        args = {"seat": body.seat, "limit": body.limit}
        return await agent_work("mistakes", agent=body.agent, board=geometry.name, **args)

    @app.post("/api/arena", responses=ERRORS)
    async def arena(body: ArenaRequest) -> dict[str, Any]:
        """A round robin, as ``ttt arena --json``: every pair plays ``games`` games on
        each side, from one generator seeded with ``seed``."""
        geometry = _geometry(body.board)
        if len(set(body.agents)) != len(body.agents):
            raise ApiError(400, "each agent may enter the arena once")
        args = {"games": body.games, "seed": body.seed}
        return await agent_work("arena", agents=body.agents, board=geometry.name, **args)

    @app.get("/api/algorithms")
    def train_options() -> dict[str, Any]:
        """Each algorithm's hyperparameters and ``ttt train``'s defaults, and whether this
        install can train it (dqn and alphazero need the neural extra)."""
        return {**_train_options(), "max_episodes": max_episodes, "jobs": jobs}

    @app.post("/api/train", status_code=202, response_model=JobStarted, responses=ERRORS)
    async def train(body: TrainRequest) -> dict[str, Any]:
        """Start a training job in a process of its own; follow it at
        ``/api/train/{job}/events``."""
        check_algorithm(body.algorithm)
        geometry = _geometry(body.board)
        _tables(geometry, "training and judging")
        hyper = dict(body.hyperparameters or {})
        hyperparameter_arguments(body.algorithm, hyper)  # a 400 before any process starts
        job = trainers.start(
            body.algorithm, geometry.name, body.episodes, body.seed, body.name, hyper
        )
        return {"job": job.id, "agent": job.agent}

    @app.get("/api/train", response_model=JobsResponse)
    def list_jobs() -> dict[str, Any]:
        return {"jobs": [j.summary() for j in trainers.jobs.values()]}

    @app.get(
        "/api/train/{job}/events",
        response_class=StreamingResponse,
        responses={404: ERRORS[404], 200: {"content": {"text/event-stream": {}}}},
    )
    async def job_events(job: str, request: Request) -> StreamingResponse:
        """Server-Sent Events, each with an ``id``: ``progress`` {episode, episodes,
        episodes_per_second, metrics?}, then one ``done`` {agent, episodes, interrupted,
        evaluation} or ``failed`` {message}. A client gets every event after the
        ``Last-Event-ID`` it sends (all of them without one), then the live ones."""
        trainers.get(job)  # 404 before the stream starts
        last = request.headers.get("last-event-id", "").strip()
        return StreamingResponse(
            trainers.events(job, int(last) if last.isdigit() else 0),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @app.delete("/api/train/{job}", response_model=JobInfo, responses=ERRORS)
    async def stop_job(job: str) -> dict[str, Any]:
        """Stop a job: the trainer saves what it learned (atomically) and reports done."""
        found = await in_thread("control", partial(trainers.stop, job))
        return found.summary()

    return app
