"""The web page and its JSON API (FastAPI). Stateless: the client sends the position.

Endpoints (documented by FastAPI's OpenAPI schema at ``/openapi.json`` and ``/docs``):

- ``GET /api/agents``: the built-in agents and every agent file in the agents folder;
- ``POST /api/play``: apply a person's move, validated;
- ``POST /api/move``: the agent's move, its values, the new position and the result;
- ``POST /api/values``: an agent's value of each empty cell (for the heat map);
- ``POST /api/evaluate``: the exact evaluation of an agent, as ``ttt eval --json``.

Every bad input is a 4xx with ``{"error": "one line"}``; bodies are limited in size and
every agent computation in time.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from functools import partial
from importlib.resources import files
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from tttlab import __version__
from tttlab.agents import BUILTIN, Agent, make_agent
from tttlab.evaluate import evaluate
from tttlab.game import (
    DEFAULT,
    Geometry,
    GeometryError,
    IllegalMoveError,
    Position,
    PositionError,
    estimate_positions,
)
from tttlab.io import AgentFileError, FileAgent, check_board, load_agent_file
from tttlab.render import board_svg

__all__ = ["create_app"]

T = TypeVar("T")

#: Largest request body accepted, in bytes.
MAX_BODY = 16 * 1024
#: Tables (perfect play, learned agents, evaluation) only on boards this small.
TABLE_LIMIT = 1_000_000
#: Search depth forced on minimax for boards above 12 cells.
WEB_MINIMAX_DEPTH = 3


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


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
        (409, "the game is over, or the agent does not play this side"),
        (413, "request body too large"),
        (422, "malformed JSON, a wrong type or an unknown field"),
        (503, "the agent took too long"),
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


def _state(position: Position) -> dict[str, Any]:
    outcome = position.outcome
    line = None
    if outcome is not None and outcome.winner is not None:
        won = int(outcome.winner)
        line = next(
            list(ln) for ln in position.geometry.lines if all(position.cells[i] == won for i in ln)
        )
    return {
        "position": position.to_string(),
        "board": position.geometry.name,
        "to_move": None if outcome else position.to_move.name,
        "result": None
        if outcome is None
        else ("draw" if outcome.winner is None else outcome.winner.name),
        "winning_line": line,
    }


class _Agents:
    """Loads each agent once and keeps it; only names from the list are ever opened.

    An agent file is read once per version (name, modification time, size), whether the
    list or a game asks for it first; a file that fails to load is remembered as failing.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder.resolve() if folder is not None else None
        self._cache: dict[tuple[str, Geometry], Agent] = {}
        self._files: dict[tuple[str, int, int], FileAgent | str] = {}
        self._lock = threading.Lock()

    def _file(self, name: str, path: Path) -> FileAgent | str:
        """The agent in a listed file, or why it cannot be used (naming the file as the
        client knows it, never by its path on this machine)."""
        stat = path.stat()
        key = (name, stat.st_mtime_ns, stat.st_size)
        with self._lock:
            found = self._files.get(key)
        if found is not None:
            return found
        loaded: FileAgent | str
        try:
            loaded = load_agent_file(path)
        except AgentFileError as error:
            loaded = str(error).replace(str(path), name)
        with self._lock:
            self._files[key] = loaded
        return loaded

    def files(self) -> dict[str, Path]:
        if self.folder is None or not self.folder.is_dir():
            return {}
        found = {}
        for path in sorted(self.folder.glob("*.npz")):
            real = path.resolve()
            # Symlinks that lead out of the folder are not offered (nor opened).
            if real.parent == self.folder and real.is_file():
                found[path.name] = real
        return found

    def listing(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = [
            {"name": name, "kind": "builtin", "board": None, "seats": ["X", "O"], "algorithm": None}
            for name in BUILTIN
        ]
        for name, path in self.files().items():
            agent = self._file(name, path)
            if isinstance(agent, str):
                continue  # a bad file is left out of the list rather than breaking it
            items.append(
                {
                    "name": name,
                    "kind": "file",
                    "board": agent.geometry.name,
                    "seats": [s.name for s in agent.seats],
                    "algorithm": agent.algorithm,
                }
            )
        return items

    def get(self, name: str, geometry: Geometry) -> Agent:
        key = (name, geometry)
        with self._lock:
            found = self._cache.get(key)
        if found is not None:
            return found
        agent = self._load(name, geometry)
        with self._lock:
            self._cache[key] = agent
        return agent

    def _load(self, name: str, geometry: Geometry) -> Agent:
        if name in BUILTIN:
            if name == "perfect" and estimate_positions(geometry) > TABLE_LIMIT:
                raise ApiError(
                    400,
                    f"perfect needs the full solution of {geometry.name}, "
                    "which this server does not build; try minimax",
                )
            depth = WEB_MINIMAX_DEPTH if geometry.cells > 12 else None
            return make_agent(name, geometry, depth=depth)
        path = self.files().get(name)
        if path is None:
            raise ApiError(404, f"unknown agent {name!r}")
        agent = self._file(name, path)
        if isinstance(agent, str):
            raise ApiError(400, agent)
        try:
            check_board(agent.geometry, name, geometry)
        except AgentFileError as error:
            raise ApiError(400, str(error)) from None
        return agent


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


def create_app(agents_dir: Path | None = None, timeout: float = 10.0) -> FastAPI:
    """The FastAPI application. ``agents_dir`` holds agent files (``*.npz``) to offer."""
    app = FastAPI(
        title="tttlab",
        version=__version__,
        description="Play and inspect tic-tac-toe agents. Moves are 0-based row-major cells.",
    )
    agents = _Agents(agents_dir)
    evaluations: dict[tuple[str, Geometry], dict[str, Any]] = {}

    async def run(func: Callable[[], T]) -> T:
        try:
            return await asyncio.wait_for(asyncio.to_thread(func), timeout)
        except TimeoutError:
            raise ApiError(503, f"the agent took longer than {timeout:g} s") from None

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
        # Keep the exception's headers: a 405 must say which methods are allowed.
        return JSONResponse(
            {"error": str(error.detail)},
            status_code=error.status_code,
            headers=getattr(error, "headers", None),
        )

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page() -> str:
        return files("tttlab.web").joinpath("static/index.html").read_text(encoding="utf-8")

    @app.get("/api/agents", response_model=AgentsResponse, responses={503: ERRORS[503]})
    async def list_agents() -> dict[str, Any]:
        return {"agents": await run(agents.listing)}

    @app.post("/api/play", response_model=State, responses=ERRORS)
    def play(body: PlayRequest) -> dict[str, Any]:
        geometry = _geometry(body.board, body.position)
        position = _position(body.position, geometry)
        if position.is_terminal:
            raise ApiError(409, f"the game is over ({position.outcome})")
        try:
            return _state(position.apply(body.move))
        except IllegalMoveError as error:
            raise ApiError(400, str(error)) from None

    def _agent_for(body: AgentRequest) -> tuple[Agent, Position]:
        geometry = _geometry(body.board, body.position)
        position = _position(body.position, geometry)
        if position.is_terminal:
            raise ApiError(409, f"the game is over ({position.outcome})")
        return agents.get(body.agent, geometry), position

    @app.post("/api/move", response_model=MoveResponse, responses=ERRORS)
    async def move(body: AgentRequest) -> dict[str, Any]:
        agent, position = await run(partial(_agent_for, body))

        def think() -> tuple[int, dict[int, float] | None]:
            try:
                values = agent.move_values(position)
                # Ties resolved by a generator seeded from the position: the same request
                # always gets the same answer, whichever worker serves it.
                chosen = agent.select_move(position, np.random.default_rng(position.id))
            except ValueError as error:
                raise ApiError(409, str(error)) from None
            return chosen, None if values is None else dict(values)

        chosen, values = await run(think)
        after = position.apply(chosen)
        return {
            **_state(after),
            "move": chosen,
            "values": None if values is None else {str(k): v for k, v in values.items()},
        }

    @app.post("/api/values", response_model=ValuesResponse, responses=ERRORS)
    async def values(body: AgentRequest) -> dict[str, Any]:
        agent, position = await run(partial(_agent_for, body))

        def ask() -> dict[str, float] | None:
            try:
                found = agent.move_values(position)
            except ValueError:
                return None  # e.g. an agent trained for the other seat has no opinion here
            return None if found is None else {str(k): float(v) for k, v in found.items()}

        return {"values": await run(ask)}

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
        agent = await run(partial(agents.get, body.agent, geometry))
        key = (body.agent, geometry)
        if key not in evaluations:
            reports = await run(partial(evaluate, agent, geometry))
            evaluations[key] = {seat: r.as_json() for seat, r in reports.items()}
        return evaluations[key]

    return app
