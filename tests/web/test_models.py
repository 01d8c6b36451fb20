"""The web API's bodies (:mod:`tttlab.web.models`): strict types and no unknown field, a
position in the board's letters only, each number and list within its declared bounds, an
uploaded file's name a plain ``.py`` name, and every error status documented with its
one-line body (through the app: tests/web/test_app.py)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from tttlab.web.models import (
    ERRORS,
    MAX_SOURCE,
    ArenaRequest,
    CheckRequest,
    ErrorBody,
    MistakesRequest,
    PlayRequest,
    TrainRequest,
)


@pytest.mark.parametrize(
    ("model", "body"),
    [
        (PlayRequest, {"position": "X........", "move": "4"}),  # strict: no string for a number
        (PlayRequest, {"position": "X........", "move": 4, "extra": 1}),
        (PlayRequest, {"position": "X..Z.....", "move": 4}),
        (PlayRequest, {"position": "", "move": 4}),
        (PlayRequest, {"position": "." * 401, "move": 4}),
        (ArenaRequest, {"agents": ["perfect"]}),
        (ArenaRequest, {"agents": ["random"] * 7}),
        (ArenaRequest, {"agents": ["random", "perfect"], "games": 0}),
        (ArenaRequest, {"agents": ["random", "perfect"], "games": 201}),
        (MistakesRequest, {"agent": "perfect", "seat": "Z"}),
        (MistakesRequest, {"agent": "perfect", "limit": 0}),
        (CheckRequest, {"source": "x", "name": "../a.py"}),
        (CheckRequest, {"source": "x", "name": "notes.txt"}),
        (CheckRequest, {"source": "x" * (MAX_SOURCE + 1)}),
        (CheckRequest, {"source": "x", "only": ["player"] * 21}),
        (TrainRequest, {"algorithm": "q", "episodes": 0}),
        (TrainRequest, {"algorithm": "q", "episodes": 10, "hyperparameters": {"a": {"b": 1}}}),
    ],
)
def test_a_body_out_of_its_declaration_is_refused(
    model: type[BaseModel], body: dict[str, Any]
) -> None:
    with pytest.raises(ValidationError):
        model.model_validate(body)


def test_a_body_within_it_gets_the_declared_defaults() -> None:
    play = PlayRequest.model_validate({"position": "X../.O./...", "move": 8})
    assert (play.move, play.board) == (8, None)
    arena = ArenaRequest.model_validate({"agents": ["random", "perfect"]})
    assert (arena.games, arena.seed, arena.board) == (20, 0, None)
    assert MistakesRequest.model_validate({"agent": "perfect"}).limit == 50
    check = CheckRequest.model_validate({"source": "def minimax(board): pass\n"})
    assert (check.name, check.only) == ("tictactoe.py", [])
    train = TrainRequest.model_validate(
        {"algorithm": "dqn", "episodes": 10, "hyperparameters": {"hidden": [8, 4], "alpha": 0.5}}
    )
    assert (train.board, train.seed, train.hyperparameters) == (
        "3x3k3",
        0,
        {"hidden": [8, 4], "alpha": 0.5},
    )


def test_every_error_status_is_documented_with_its_one_line_body() -> None:
    assert sorted(ERRORS, key=int) == [400, 404, 409, 413, 422, 429, 499, 503]
    for code, doc in ERRORS.items():
        assert doc["model"] is ErrorBody, code
        assert doc["description"], code
    assert list(ErrorBody.model_fields) == ["error"]
