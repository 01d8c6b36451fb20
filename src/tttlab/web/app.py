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
- ``POST /api/train``, ``GET /api/train``, ``GET /api/train/{job}/events`` (Server-Sent
  Events), ``DELETE /api/train/{job}``: training jobs (see :mod:`tttlab.web.jobs`).

Every bad input is a 4xx with ``{"error": "one line"}``; bodies are limited in size. Agent
work runs in worker processes (:mod:`tttlab.web.pool`) and is ended at the time limit.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from tttlab import __version__
from tttlab.game import (
    DEFAULT,
    Geometry,
    GeometryError,
    IllegalMoveError,
    Position,
    PositionError,
    estimate_positions,
)
from tttlab.render import board_svg
from tttlab.train import ConfigError, config_from_options, default_config
from tttlab.web.compute import TABLE_LIMIT, ApiError, state
from tttlab.web.jobs import ALGORITHMS, HYPERPARAMETERS, TABLE, Jobs, available, check_algorithm
from tttlab.web.pool import Pool

__all__ = ["create_app"]


#: Largest request body accepted, in bytes.
MAX_BODY = 16 * 1024
#: Games per pairing and agents in one arena request.
ARENA_GAMES = 200
ARENA_AGENTS = 6
#: Episodes of one training job unless ``ttt serve --max-episodes`` says otherwise.
MAX_EPISODES = 2_000_000


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


POSITION = Field(
    min_length=1,
    max_length=400,
    pattern=r"^[XxOo.\-_/ ]+$",
    description="X, O and '.', row-major, '/' between rows optional",
)


class PlayRequest(_Body):
    position: str = POSITION
    move: int = Field(description="0-based row-major cell")
    board: str | None = Field(default=None, max_length=20, description="e.g. 3x3k3")


class AgentRequest(_Body):
    position: str = POSITION
    agent: str = Field(max_length=200)
    board: str | None = Field(default=None, max_length=20)


class EvaluateRequest(_Body):
    agent: str = Field(max_length=200)
    board: str | None = Field(default=None, max_length=20)


class ExactRequest(_Body):
    position: str = POSITION
    board: str | None = Field(default=None, max_length=20)


class MistakesRequest(_Body):
    agent: str = Field(max_length=200)
    board: str | None = Field(default=None, max_length=20)
    seat: Literal["X", "O"] = "X"
    limit: int = Field(default=50, ge=1, le=200, description="mistakes listed at most")


class ArenaRequest(_Body):
    agents: list[str] = Field(min_length=2, max_length=6, description="agent names")
    board: str | None = Field(default=None, max_length=20)
    games: int = Field(default=20, ge=1, le=200, description="games per pairing and side")
    seed: int = Field(default=0, ge=0, le=2**63 - 1)


class TrainRequest(_Body):
    algorithm: str = Field(
        max_length=40, description="td, q, sarsa, expected-sarsa, double-q, dqn or alphazero"
    )
    board: str = Field(default="3x3k3", max_length=20)
    episodes: int = Field(ge=1, le=2**31 - 1, description="training games")
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    name: str | None = Field(default=None, max_length=80, description="agent file name")
    hyperparameters: dict[str, float | int | str | bool] | None = Field(
        default=None, description="ttt train's options, '_' for '-' (epsilon, alpha, ...)"
    )


class SvgRequest(_Body):
    position: str = POSITION
    board: str | None = Field(default=None, max_length=20)


class ErrorBody(BaseModel):
    error: str = Field(description="what is wrong, in one line")


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": text}
    for code, text in (
        (400, "bad position, board or agent file"),
        (404, "unknown agent"),
        (409, "the game is over, the agent does not play this side, or the name is taken"),
        (413, "request body too large"),
        (422, "malformed JSON, a wrong type or an unknown field"),
        (429, "as many training jobs as allowed are running"),
        (503, "the work took too long and was stopped, or the server is busy"),
    )
}


class State(BaseModel):
    position: str = Field(description="row-major, without '/'")
    board: str
    to_move: str | None = Field(description="X or O; null once the game is over")
    result: str | None = Field(description='null while playing, else "X", "O" or "draw"')
    winning_line: list[int] | None


class MoveResponse(State):
    move: int
    values: dict[str, float] | None = Field(description="the agent's value of each legal move")


class ValuesResponse(BaseModel):
    values: dict[str, float] | None


class AgentInfo(BaseModel):
    name: str
    kind: str
    board: str | None
    seats: list[str]
    algorithm: str | None


class AgentsResponse(BaseModel):
    agents: list[AgentInfo]


def _geometry(board: str | None, position: str | None = None) -> Geometry:
    if board is None:
        if position is not None and "/" in position:
            try:
                return Position.from_string(position).geometry
            except PositionError as error:
                raise ApiError(400, str(error)) from None
        return DEFAULT
    try:
        geometry = Geometry.parse(board)
    except GeometryError as error:
        raise ApiError(400, str(error)) from None
    if estimate_positions(geometry) > 10 * TABLE_LIMIT and geometry.cells > 25:
        raise ApiError(400, f"{geometry.name} is larger than this server plays")
    return geometry


def _position(text: str, geometry: Geometry) -> Position:
    try:
        return Position.from_string(text, geometry)
    except PositionError as error:
        raise ApiError(400, str(error)) from None


class ExactResponse(BaseModel):
    value: int = Field(description="the position's value for the side to move")
    values: dict[str, int] = Field(description="each legal move's value for the side to move")


class JobInfo(BaseModel):
    job: str
    algorithm: str
    board: str
    episodes: int
    seed: int
    agent: str = Field(description="the agent file's name in the agents folder")
    state: str = Field(description="running, stopping, done, stopped or error")
    episode: int
    evaluation: dict[str, Any] | None
    error: str | None


class JobsResponse(BaseModel):
    jobs: list[JobInfo]


class JobStarted(BaseModel):
    job: str
    agent: str


def _train_options() -> dict[str, Any]:
    algorithms: dict[str, Any] = {}
    for name in ALGORITHMS:
        defaults: dict[str, Any] = {}
        if name in TABLE:
            config = default_config(name, 1)
            defaults = {
                "epsilon": config.epsilon.start,
                "epsilon_end": config.epsilon.end,
                "epsilon_schedule": config.epsilon.kind,
                "alpha": config.alpha.start,
                "alpha_end": config.alpha.end,
                "alpha_schedule": config.alpha.kind,
                "gamma": config.gamma,
            }
            if name == "td":
                defaults["draw_reward"] = config.draw_reward
        algorithms[name] = {
            "available": available(name),
            "hyperparameters": list(HYPERPARAMETERS[name]),
            "defaults": {k: v for k, v in defaults.items() if v is not None},
        }
    return {"algorithms": algorithms}


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

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        pool.start()
        try:
            yield
        finally:
            # Stop training as DELETE does, so what the jobs learned is kept.
            await asyncio.to_thread(trainers.stop_all)
            pool.close()

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
        return await asyncio.to_thread(pool.call, name, args, timeout)

    @app.middleware("http")
    async def limit_body(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return JSONResponse(
                {"error": f"request bodies are limited to {MAX_BODY} bytes"}, status_code=413
            )
        if request.method in ("POST", "PUT", "PATCH") and length is None:
            body = b""
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_BODY:
                    return JSONResponse(
                        {"error": f"request bodies are limited to {MAX_BODY} bytes"},
                        status_code=413,
                    )
            request._body = body  # the stream is used up: hand the bytes on
        return await call_next(request)

    @app.exception_handler(ApiError)
    async def api_error(request: Request, error: ApiError) -> JSONResponse:
        return JSONResponse({"error": error.message}, status_code=error.status)

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

    @app.post("/api/play", response_model=State, responses=ERRORS)
    def play(body: PlayRequest) -> dict[str, Any]:
        geometry = _geometry(body.board, body.position)
        position = _position(body.position, geometry)
        if position.is_terminal:
            raise ApiError(409, f"the game is over ({position.outcome})")
        try:
            return state(position.apply(body.move))
        except IllegalMoveError as error:
            raise ApiError(400, str(error)) from None

    def _checked(board: str | None, position: str) -> tuple[str, str]:
        geometry = _geometry(board, position)
        found = _position(position, geometry)
        if found.is_terminal:
            raise ApiError(409, f"the game is over ({found.outcome})")
        return geometry.name, found.to_string()

    @app.post("/api/move", response_model=MoveResponse, responses=ERRORS)
    async def move(body: AgentRequest) -> dict[str, Any]:
        board, position = _checked(body.board, body.position)
        return dict(
            await work("move", folder=where, agent=body.agent, board=board, position=position)
        )

    @app.post("/api/values", response_model=ValuesResponse, responses=ERRORS)
    async def values(body: AgentRequest) -> dict[str, Any]:
        board, position = _checked(body.board, body.position)
        return dict(
            await work("values", folder=where, agent=body.agent, board=board, position=position)
        )

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
        position = _position(body.position, _geometry(body.board))
        return Response(board_svg(position), media_type="image/svg+xml")

    @app.post("/api/evaluate", responses=ERRORS)
    async def evaluate_agent(body: EvaluateRequest) -> dict[str, Any]:
        geometry = _geometry(body.board)
        if estimate_positions(geometry) > TABLE_LIMIT:
            raise ApiError(400, f"exact evaluation of {geometry.name} is too large for this server")
        return dict(await work("evaluate", folder=where, agent=body.agent, board=geometry.name))

    @app.post("/api/mistakes", responses=ERRORS)
    async def list_mistakes(body: MistakesRequest) -> dict[str, Any]:
        """The positions where the agent may play a move that loses value (what ``ttt eval``
        counts against its optimal share), most likely first against a random opponent."""
        geometry = _geometry(body.board)
        if estimate_positions(geometry) > TABLE_LIMIT:
            raise ApiError(400, f"exact mistakes of {geometry.name} are too large for this server")
        return dict(
            await work(
                "mistakes",
                folder=where,
                agent=body.agent,
                board=geometry.name,
                seat=body.seat,
                limit=body.limit,
            )
        )

    @app.post("/api/arena", responses=ERRORS)
    async def arena(body: ArenaRequest) -> dict[str, Any]:
        """A round robin, as ``ttt arena --json``: every pair plays ``games`` games on
        each side, from one generator seeded with ``seed``."""
        geometry = _geometry(body.board)
        if len(set(body.agents)) != len(body.agents):
            raise ApiError(400, "each agent may enter the arena once")
        return dict(
            await work(
                "arena",
                folder=where,
                agents=body.agents,
                board=geometry.name,
                games=body.games,
                seed=body.seed,
            )
        )

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
        if estimate_positions(geometry) > TABLE_LIMIT:
            raise ApiError(
                400, f"{geometry.name} is too large to train and judge exactly on this server"
            )
        hyper = dict(body.hyperparameters or {})
        if body.algorithm in TABLE:
            unknown = [k for k in hyper if k not in HYPERPARAMETERS[body.algorithm]]
            if not unknown:
                try:
                    config_from_options(body.algorithm, body.episodes, body.seed, geometry, hyper)
                except ConfigError as error:
                    raise ApiError(400, str(error)) from None
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
    async def job_events(job: str) -> StreamingResponse:
        """Server-Sent Events: ``progress`` {episode, episodes, episodes_per_second,
        metrics?}, then one ``done`` {agent, episodes, interrupted, evaluation} or ``error``
        {message}. A late client gets every event so far, then the live ones."""
        trainers.get(job)  # 404 before the stream starts
        return StreamingResponse(
            trainers.events(job),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @app.delete("/api/train/{job}", response_model=JobInfo, responses=ERRORS)
    async def stop_job(job: str) -> dict[str, Any]:
        """Stop a job: the trainer saves what it learned (atomically) and reports done."""
        found = await asyncio.to_thread(trainers.stop, job)
        return found.summary()

    return app
