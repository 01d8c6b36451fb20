"""The one small agent protocol.

An agent picks a move for a position with a generator it is given, and can say which moves
it may play in evaluation mode (its move distribution), whether that distribution is the
whole truth about its play (``deterministic``) and, for display, what it thinks each legal
move is worth. Agents never print or read input; learning lives elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from tttlab.errors import AgentError
from tttlab.game import Geometry, Player, Position, StateSpace
from tttlab.limits import PROOF_BATCH

__all__ = [
    "Agent",
    "check_playable",
    "check_rows",
    "is_deterministic",
    "on_rows",
    "policy_matrix",
    "probability_rows",
    "rows_of",
    "sample",
    "spread",
    "table_rows",
    "uniform",
]

#: A batch of boards (n × cells, 0/1/2) and their mover → the agent's move probabilities.
Rows = Callable[[npt.NDArray[Any], int], npt.NDArray[np.float64]]
#: Positions between two progress reports when an agent is asked one by one (one that
#: answers a batch at once is asked ``PROOF_BATCH`` at a time, as the proof asks it).
ASKED_ONE_BY_ONE = 1 << 10


@runtime_checkable
class Agent(Protocol):
    """What every tttlab agent offers.

    Examples:
        A structural protocol: any object with these five members is an agent, judged and
        played like the built-in ones (someone else's object is asked each position twice,
        whatever it declares: :mod:`tttlab.unboxed.useragent`).

        >>> import numpy as np
        >>> import tttlab
        >>> class FirstFree:
        ...     name = "first-free"
        ...     deterministic = True
        ...     def move_probabilities(self, position):
        ...         return {position.legal_moves[0]: 1.0}
        ...     def select_move(self, position, rng):
        ...         return position.legal_moves[0]
        ...     def move_values(self, position):
        ...         return None
        >>> isinstance(FirstFree(), Agent), tttlab.evaluate(FirstFree()).X.worst_case
        (True, -1)
    """

    @property
    def name(self) -> str:
        """A short label, e.g. ``perfect`` or a file name."""
        ...

    #: True when :meth:`move_probabilities` is the whole truth about the agent's play: it
    #: answers a position the same way every time it is asked, and :meth:`select_move`
    #: plays only moves it gives, whatever the generator (``random``: its uniform choice
    #: is; a search with random rollouts is not). Only then is a verdict over the moves
    #: it gives exact, and a proof covers every game it plays.
    deterministic: bool

    def move_probabilities(self, position: Position) -> Mapping[int, float]:
        """The moves the agent may play here in evaluation mode, with their probabilities.

        Ties the agent breaks at random appear with equal shares. Exact evaluation is
        built on this.
        """
        ...

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        """Choose a legal move, using ``rng`` for every random choice."""
        ...

    def move_values(self, position: Position) -> Mapping[int, float] | None:
        """The agent's value of each legal move, from the mover's side, or None."""
        ...


def is_deterministic(agent: Agent) -> bool:
    """Whether ``agent`` declares itself deterministic (an agent that does not say is not)."""
    return getattr(agent, "deterministic", False) is True


def check_playable(geometry: Geometry, position: Position) -> None:
    """Refuse a position on another board, or one where the game is over."""
    if position.geometry != geometry:
        raise AgentError(f"agent plays {geometry.name}, position is {position.geometry.name}")
    if position.is_terminal:
        raise AgentError("the game is over: there is no move to choose")


def uniform(moves: tuple[int, ...] | list[int]) -> dict[int, float]:
    """Equal probability over ``moves``.

    Examples:
        >>> uniform((0, 4))
        {0: 0.5, 4: 0.5}
    """
    share = 1.0 / len(moves)
    return {int(m): share for m in moves}


def sample(probabilities: Mapping[int, float], rng: np.random.Generator) -> int:
    """Draw one move from a distribution; a single move needs no random draw.

    Examples:
        >>> sample({0: 0.25, 4: 0.75}, np.random.default_rng(0)) in (0, 4)
        True
    """
    moves = list(probabilities)
    if len(moves) == 1:
        return moves[0]
    weights = np.fromiter(probabilities.values(), dtype=np.float64, count=len(moves))
    return moves[int(rng.choice(len(moves), p=weights / weights.sum()))]


def policy_matrix(
    agent: Agent,
    space: StateSpace,
    side: Player,
    progress: Callable[[int, int], None] | None = None,
) -> npt.NDArray[np.float64]:
    """The agent's evaluation-mode move probabilities at every position where ``side``
    moves, as an N × cells array (rows of other positions are zero).

    Agents with tables provide this directly (``agent.policy_matrix(side)``); others are
    asked a batch at a time (``move_probability_rows``) or position by position.
    ``progress`` is told (positions answered, positions to answer) after each batch.
    """
    rows = space.decisions(side)
    direct = getattr(agent, "policy_matrix", None)
    own = getattr(agent, "geometry", None)
    if callable(direct) and own == space.geometry:
        result: npt.NDArray[np.float64] = direct(side)
        check_rows(agent.name, space.geometry, space.boards[rows], result[rows])
        if progress is not None:
            progress(len(rows), len(rows))
        return result
    ask = rows_of(agent, space.geometry)
    step = PROOF_BATCH if _answers_batches(agent, space.geometry) else ASKED_ONE_BY_ONE
    probs = np.zeros((len(rows), space.geometry.cells))
    for start in range(0, len(rows), step):
        boards = space.boards[rows[start : start + step]]
        probs[start : start + step] = ask(boards, int(side))
        if progress is not None:
            progress(min(start + step, len(rows)), len(rows))
    check_rows(agent.name, space.geometry, space.boards[rows], probs)
    return on_rows(space, rows, probs)


def rows_of(agent: Agent, geometry: Geometry) -> Rows:
    """The agent's move probabilities for a batch of boards (n × cells, 0/1/2) whose
    mover is given: one call for the whole batch when the agent offers it
    (``move_probability_rows``) for this board, else position by position (where an agent
    of another board refuses in its own words)."""
    if _answers_batches(agent, geometry):
        batch = agent.move_probability_rows  # type: ignore[attr-defined]

        def batched(boards: npt.NDArray[Any], mover: int) -> npt.NDArray[np.float64]:
            return np.asarray(batch(boards, np.full(len(boards), mover)), dtype=np.float64)

        return batched
    return partial(_one_by_one, agent, geometry)


def _answers_batches(agent: Agent, geometry: Geometry) -> bool:
    """Whether the agent answers a batch of ``geometry``'s boards in one call: it offers
    ``move_probability_rows`` and plays this board (a batch of another board's rows would
    be taken for its own)."""
    batch = getattr(agent, "move_probability_rows", None)
    return callable(batch) and getattr(agent, "geometry", None) in (None, geometry)


def _one_by_one(
    agent: Agent, geometry: Geometry, boards: npt.NDArray[Any], mover: int
) -> npt.NDArray[np.float64]:
    return probability_rows(agent, geometry, boards)


def spread(marked: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    """Each row's marked moves (booleans, or weights) sharing probability 1 in proportion."""
    rows: npt.NDArray[np.float64] = marked / marked.sum(axis=1, keepdims=True)
    return rows


def on_rows(
    space: StateSpace, rows: npt.NDArray[np.intp], probs: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """An N × cells matrix over the whole table: ``probs`` at ``rows``, zero elsewhere."""
    out = np.zeros((space.size, space.geometry.cells))
    out[rows] = probs
    return out


def check_rows(
    name: str, geometry: Geometry, boards: npt.NDArray[Any], probs: npt.NDArray[np.float64]
) -> None:
    """The one legality rule for an agent's rows, which every judge applies (the exact judge
    and the proof alike): refuse move probabilities that play no move (a row that is not
    finite, has a negative entry, or sums to 0), so that no judge drops such a position from
    the games it counts, and any probability on an occupied cell, naming the position."""
    bad = ~np.isfinite(probs).all(axis=1) | (probs < 0).any(axis=1) | ~(probs.sum(axis=1) > 0)
    occupied = ((probs != 0) & (np.asarray(boards)[:, : geometry.cells] != 0)).any(axis=1)
    for rows, what in ((bad, "plays no move at"), (occupied, "plays an occupied cell in")):
        if rows.any():
            at = int(np.flatnonzero(rows)[0])
            shown = Position(geometry, tuple(int(c) for c in boards[at][: geometry.cells]))
            raise AgentError(f"{name} {what} {shown.to_string('/')}")


def probability_rows(
    agent: Agent, geometry: Geometry, boards: npt.NDArray[Any]
) -> npt.NDArray[np.float64]:
    """The agent's evaluation-mode move probabilities for a batch of open boards (n × cells,
    0/1/2), asked position by position: for agents without a batched answer of their own
    (``move_probability_rows``)."""
    out = np.zeros(np.shape(boards))
    for i, cells in enumerate(boards):
        position = Position(geometry, tuple(int(c) for c in cells))
        for move, p in agent.move_probabilities(position).items():
            out[i, move] = p
    return out


def table_rows(space: StateSpace, boards: npt.NDArray[Any]) -> npt.NDArray[np.intp]:
    """The table row of each board (n × cells, 0/1/2), for agents that act from a table
    and answer a batch of positions at once (``move_probability_rows``)."""
    ids = np.asarray(boards, dtype=np.int64) @ space.geometry.weights.astype(np.int64)
    rows = np.minimum(np.searchsorted(space.ids, ids), space.size - 1)
    missing = space.ids[rows] != ids
    if missing.any():
        cells = tuple(int(c) for c in boards[int(np.flatnonzero(missing)[0])])
        shown = Position(space.geometry, cells).to_string("/")
        raise AgentError(f"{shown} is not reachable from the empty board")
    return rows
