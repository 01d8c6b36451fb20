"""The web API's request and response bodies (pydantic): FastAPI derives the OpenAPI schema
at ``/openapi.json`` from them, and refuses anything else with a 422."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ERRORS",
    "AgentInfo",
    "AgentRequest",
    "AgentsResponse",
    "ArenaRequest",
    "CheckInfo",
    "CheckRequest",
    "ErrorBody",
    "EvaluateRequest",
    "ExactRequest",
    "ExactResponse",
    "JobInfo",
    "JobStarted",
    "JobsResponse",
    "MistakesRequest",
    "MoveResponse",
    "PlayRequest",
    "State",
    "SvgRequest",
    "TrainRequest",
    "ValuesResponse",
]


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
        max_length=40, description="td, q, sarsa, expected-sarsa, double-q, alphazero, dqn or ppo"
    )
    board: str = Field(default="3x3k3", max_length=20)
    episodes: int = Field(ge=1, le=2**31 - 1, description="training games")
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    name: str | None = Field(default=None, max_length=80, description="agent file name")
    hyperparameters: dict[str, float | int | str | bool | list[int]] | None = Field(
        default=None,
        description="ttt train's options, '_' for '-' (epsilon, alpha, hidden, ...): see "
        "GET /api/algorithms for each one's type, range and default",
    )


class SvgRequest(_Body):
    position: str = POSITION
    board: str | None = Field(default=None, max_length=20)


#: The largest file the Check page grades, in characters.
MAX_SOURCE = 64 * 1024


class CheckRequest(_Body):
    source: str = Field(min_length=1, max_length=MAX_SOURCE, description="the file's text")
    name: str = Field(
        default="tictactoe.py",
        max_length=64,
        pattern=r"^\w+\.(py|ipynb)$",
        description="the file's name, a .py file or a notebook (.ipynb); the exercise is "
        "detected from what it defines",
    )
    only: list[Annotated[str, Field(max_length=40)]] = Field(
        default_factory=list, max_length=20, description="checks to run"
    )


class CheckInfo(BaseModel):
    available: bool = Field(description="whether this server can make a box for the code")
    isolation: str = Field(description="how uploaded code is contained, or why it cannot be")
    max_chars: int = Field(description="the largest file accepted, in characters")
    time_limit: float = Field(description="seconds the grading of one file may take")


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
        (499, "the page went away: the work was cancelled"),
        (503, "the work took too long and was stopped, the server is busy, or it runs no code"),
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
