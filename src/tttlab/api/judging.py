"""The judges, as functions: exact evaluation and proofs of an agent (``ttt eval``), and
grading a student's exercise (``ttt check``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, overload

from tttlab.agents import Agent
from tttlab.agents.base import is_deterministic
from tttlab.api.checks import as_agent, geometry_of, seat_of, space_within
from tttlab.api.results import Evaluation, Proof
from tttlab.errors import AgentError, NotDeterministic, TttlabError
from tttlab.evaluation import (
    ProofProgress,
    ProofReport,
    TableProgress,
    evaluate_seats,
    prove_worst_case,
)
from tttlab.game import Geometry, Player
from tttlab.limits import EXACT_JUDGE_POSITIONS
from tttlab.unboxed import sampling_if_it_differs
from tttlab.usercode.grading import check_path
from tttlab.usercode.report import CheckReport

__all__ = ["check", "evaluate"]


@overload
def evaluate(
    agent: Agent | str | Path | Any,
    board: Geometry | str | None = ...,
    seat: str | Player | None = ...,
    *,
    convention: str | None = ...,
    prove: Literal[False] = ...,
    on_progress: Callable[[TableProgress], None] | None = ...,
) -> Evaluation: ...


@overload
def evaluate(
    agent: Agent | str | Path | Any,
    board: Geometry | str | None = ...,
    seat: str | Player | None = ...,
    *,
    convention: str | None = ...,
    prove: Literal[True],
    seconds: float | None = ...,
    on_progress: Callable[[ProofProgress], None] | None = ...,
) -> Proof: ...


def evaluate(
    agent: Agent | str | Path | Any,
    board: Geometry | str | None = None,
    seat: str | Player | None = None,
    *,
    convention: str | None = None,
    prove: bool = False,
    seconds: float | None = None,
    on_progress: Callable[[Any], None] | None = None,
) -> Evaluation | Proof:
    """Evaluate an agent exactly, over the whole game graph: ``ttt eval``.

    ``agent`` may also be anyone's policy: a function, a model with ``predict``, or
    ``"file.py:NAME"``, called under ``convention`` (detected when None; see
    :mod:`tttlab.unboxed.adapters`), and asked each position twice. An agent that is not
    deterministic (one that says so, or user code that answered a position two ways) is
    judged from sampled move probabilities, and the result says ``sampled``.

    With ``prove=True`` (``ttt eval --prove``) no table is built: the worst case of each
    seat is proved by walking every game the agent can play, on boards of any size (see
    :mod:`tttlab.evaluation.worstcase`); the optimal share is ``None`` and a seat that
    can be beaten carries its shortest losing line. ``seconds`` bounds the whole proof (all
    its seats): a seat neither proved nor refuted by then raises
    :class:`~tttlab.evaluation.ProofTooLarge`, so no verdict claims more than was walked.
    ``on_progress`` is told where the walk is (a :class:`~tttlab.evaluation.ProofProgress`,
    with its seat) after each batch the agent answers and at the end of each ply; without
    ``prove``, how many of a seat's positions the agent has answered, of how many (a
    :class:`~tttlab.evaluation.TableProgress`), after each batch.

    Examples:
        >>> import tttlab
        >>> evaluation = tttlab.evaluate("perfect")
        >>> evaluation.X.worst_case, evaluation.O.optimal_share, evaluation.unbeatable
        (0, 1.0, True)
        >>> proof = tttlab.evaluate("minimax:1", prove=True)
        >>> proof.X.worst_case, proof.O.worst_case, proof.O.line
        (0, -1, (4, 0, 3, 2, 5))
    """
    geometry = None if board is None else geometry_of(board)
    player, geometry = as_agent(agent, geometry, convention)
    seats = None if seat is None else (seat_of(seat),)
    if prove:
        return _proof(player, geometry, seats, seconds, on_progress)
    if seconds is not None:
        raise TttlabError("seconds bounds a proof: it applies with prove=True")
    space_within(
        geometry,
        EXACT_JUDGE_POSITIONS,
        "exact evaluation",
        "ttt eval --sample judges sampled decisions",
    )
    reports = sampling_if_it_differs(
        player, lambda: evaluate_seats(player, geometry, seats, on_progress)
    )
    sampled = not is_deterministic(player)
    return Evaluation(geometry.name, player.name, reports.get("X"), reports.get("O"), sampled)


def _proof(
    player: Agent,
    geometry: Geometry,
    seats: tuple[Player, ...] | None,
    seconds: float | None,
    on_progress: Callable[[ProofProgress], None] | None,
) -> Proof:
    played = tuple(getattr(player, "seats", (Player.X, Player.O)))
    chosen = seats or played
    for side in chosen:
        if side not in played:
            raise TttlabError(f"{player.name} does not play {side.name}")
    if seconds is not None and not seconds > 0:
        raise TttlabError(f"a proof's seconds must be above 0, got {seconds}")
    deadline = None if seconds is None else time.perf_counter() + seconds
    reports: dict[str, ProofReport] = {}
    try:
        for side in chosen:
            left = None if deadline is None else max(deadline - time.perf_counter(), 0.0)
            reports[side.name] = prove_worst_case(
                player, geometry, side, seconds=left, progress=on_progress
            )
    except NotDeterministic as error:
        raise AgentError(f"{error}; no proof covers every move it may play") from None
    return Proof(geometry.name, player.name, reports.get("X"), reports.get("O"))


def check(
    path: str | Path,
    *,
    exercise: str | None = None,
    only: Sequence[str] = (),
    time_limit: float = 120.0,
    memory_mb: int = 1024,
    call_seconds: float = 5.0,
    isolation: str = "auto",
    names: Mapping[str, str] | None = None,
    others: Iterable[str | Path] = (),
) -> CheckReport:
    """Grade an exercise file, a notebook or a student's folder on every reachable board:
    ``ttt check``. The code runs in a box of its own with these limits (``isolation``:
    "auto", "required" or "off", as ``--isolation``); ``exercise`` (one of "cs50",
    "course", "board", "td-agent", "q-agent", "mdp") forces the shape (else every shape the
    files define is graded, in one report), ``only`` names the checks to run, and ``names``
    maps the exercise's names to the student's, as ``--name`` (``{"initialV_x":
    "init_x_vals", "board": "tiles"}``). A file is graded with the modules beside it that
    it imports, never one of ``others`` (the class's other submissions, when a loop grades
    them one by one), nor a file of theirs.

    Examples:
        ```python
        import tttlab

        report = tttlab.check("tictactoe.py")
        print(report.summary())                    # each check, and where it fails
        if not report.ok:
            print(report.checks["result"].example.repro)   # a line that reproduces it
        ```
    """
    target = Path(path)
    if not target.exists():
        raise TttlabError(f"no such file or folder: {target}")
    if not target.is_dir() and target.suffix not in (".py", ".ipynb"):
        raise TttlabError(f"{target} is not a Python file (.py), a notebook (.ipynb) or a folder")
    for name, value in (("time_limit", time_limit), ("call_seconds", call_seconds)):
        if not isinstance(value, (int, float)) or not 0 < value <= 3600:
            raise TttlabError(f"{name} must be a number of seconds in (0, 3600], got {value!r}")
    if not isinstance(memory_mb, int) or memory_mb < 128:
        raise TttlabError(f"memory_mb must be a whole number of at least 128, got {memory_mb!r}")
    return check_path(
        target,
        exercise=exercise,
        time_limit=float(time_limit),
        memory_mb=memory_mb,
        call_seconds=float(call_seconds),
        only=tuple(only),
        isolation=isolation,
        names=dict(names or {}),
        others=tuple(Path(o) for o in others),
    )
