"""The user code agent: a tttlab agent that asks someone's code for each move, under one
of the conventions of :mod:`tttlab.unboxed.adapters`, and never believes it about itself.

Each position a judge needs is asked twice, again only after the batch's other positions, in
a shuffled order (a batched policy: in two calls at least), and the answers must agree; where
they differ, :class:`~tttlab.errors.NotDeterministic` says where, and the exact judge asks
:data:`SAMPLES` answers per position instead. What the code raises, and any illegal move,
becomes one :class:`~tttlab.errors.AgentError` line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from tttlab.agents.base import check_playable, check_rows
from tttlab.errors import AgentError, NotDeterministic
from tttlab.exercise import board_of
from tttlab.game import Geometry, Player, Position, StateSpace, state_space
from tttlab.game.observation import planes_of
from tttlab.unboxed.userspec import raised

__all__ = ["SAMPLES", "UserAgent", "sampling_if_it_differs"]

T = TypeVar("T")

#: Answers per position from which a policy that is not deterministic is judged.
SAMPLES = 32
#: Positions per call of a batched policy.
_BATCH = 65_536


@dataclass(eq=False)
class UserAgent:
    """A tttlab agent that asks user code for each move (see the module's doc)."""

    target: Any
    convention: str
    geometry: Geometry
    name: str
    takes_position: bool = False
    #: Believed until two answers at one position differ (then ``sample_instead``).
    deterministic: bool = True
    #: The course convention: the student's Environment class.
    environment: Any = None
    #: The seats it plays (a course agent whose symbol is set plays that seat only).
    seats: tuple[Player, ...] = (Player.X, Player.O)
    _memo: dict[int, Mapping[int, float]] = field(default_factory=dict, repr=False)
    #: Where two answers differed (the position, the two answers), once they did.
    _differed: str | None = field(default=None, repr=False)
    _asked: int = field(default=0, repr=False)  # positions asked twice
    #: Shuffles the order in which positions are asked again (seeded: the same every run).
    probe_rng: np.random.Generator = field(
        default_factory=lambda: np.random.default_rng(0), repr=False
    )

    @property
    def sampled(self) -> bool:
        """The exact judge estimates this policy's probabilities from samples."""
        return not self.deterministic

    def sample_instead(self, why: str | None = None) -> None:
        """Judge from :data:`SAMPLES` answers per position from now on (two answers at one
        position differed, or, ``why``, the agent says it is not deterministic)."""
        self.deterministic = False
        self._memo.clear()
        if why is not None:
            self._differed = why

    def established(self) -> str:
        """What the judging established about determinism, in one line."""
        if self._differed is None:
            return (
                f"{self.name} answered each of the {self._asked:,} positions it was asked "
                "twice the same way both times"
            )
        judged = f": judged from {SAMPLES} answers per position" if self.sampled else ""
        return f"{self.name} is not deterministic ({self._differed}){judged}"

    def describe(self) -> str:
        kind = {
            "exercise": "the exercise's f(board) -> (i, j)",
            "position": "f(position) -> cell",
            "gym": "f(observation, action_mask) -> action",
            "sb3": "a model with predict(observation, action_masks=...)",
            "batched": "a batched f(observations, masks) -> actions",
            "course": "the course's agent: take_action(env) on its own Environment",
            "agent": "tttlab's agent protocol",
        }[self.convention]
        return f"{self.name}: {kind}; each position is asked twice"

    # -- asking the code ---------------------------------------------------------------

    def _fail(self, position: Position, what: str) -> AgentError:
        return AgentError(f"{self.name} {what} at position {position.to_string('/')}")

    def _ask(self, position: Position) -> Any:
        g = self.geometry
        if self.convention == "exercise":
            return self.target(board_of(position))
        if self.convention == "position":
            return self.target(position if self.takes_position else position.to_string())
        if self.convention == "course":
            return self._ask_course(position)
        observation = planes_of(position.cells, int(position.to_move), g)
        mask = np.zeros(g.cells, dtype=np.int8)
        mask[list(position.legal_moves)] = 1
        if self.convention == "gym":
            return self.target(observation, mask)
        return self._ask_batch(observation[None], mask[None])[0]

    def _ask_course(self, position: Position) -> Any:
        """Put the position on a fresh Environment, let the agent play greedily (ε = 0),
        and read its move off the board (or take the (i, j) it returns)."""
        g = self.geometry
        env = self.environment()
        mover = env.x if position.to_move == Player.X else env.o
        values = {0: 0, 1: env.x, 2: env.o}
        for k, c in enumerate(position.cells):
            env.board[k // g.cols, k % g.cols] = values[c]
        before = np.array(env.board, copy=True)
        agent = self.target
        saved = {a: getattr(agent, a) for a in ("eps", "epsilon", "verbose") if hasattr(agent, a)}
        try:
            for attribute in saved:
                setattr(agent, attribute, 0 if attribute != "verbose" else False)
            if len(self.seats) == 2:
                if callable(getattr(agent, "set_symbol", None)):
                    agent.set_symbol(mover)
                else:
                    agent.sym = mover
            returned = agent.take_action(env)
        finally:
            for attribute, value in saved.items():
                setattr(agent, attribute, value)
        changed = np.flatnonzero(np.asarray(env.board).ravel() != before.ravel())
        if len(changed) == 1:
            return divmod(int(changed[0]), g.cols)
        if len(changed) == 0 and returned is not None:
            return returned
        raise AgentError(
            f"{self.name}.take_action changed {len(changed)} cells at position "
            f"{position.to_string('/')}; it should place one mark"
        )

    def _ask_batch(
        self, observations: npt.NDArray[np.int8], masks: npt.NDArray[np.int8]
    ) -> npt.NDArray[np.int64]:
        try:
            if self.convention == "sb3":
                answer = self.target.predict(observations, action_masks=masks, deterministic=True)
                answer = answer[0] if isinstance(answer, tuple) else answer
            else:
                answer = self.target(observations, masks)
        except BaseException as error:
            if isinstance(error, KeyboardInterrupt):
                raise
            raise AgentError(
                f"{self.name} raised {raised(error)} when asked {len(observations)} positions"
            ) from None
        actions = np.asarray(answer)
        if actions.shape != (len(observations),) or not np.issubdtype(actions.dtype, np.integer):
            if actions.shape == (len(observations),) and np.all(np.mod(actions, 1) == 0):
                return actions.astype(np.int64)
            raise AgentError(
                f"{self.name} returned {actions.dtype} of shape {actions.shape} for "
                f"{len(observations)} positions; expected {len(observations)} whole numbers"
            )
        return actions.astype(np.int64)

    def _cell(self, position: Position, answer: Any) -> int:
        g = self.geometry
        if self.convention in ("exercise", "course"):
            ok = isinstance(answer, (tuple, list)) and len(answer) == 2
            try:
                row, col = (int(v.__index__()) for v in answer) if ok else (-1, -1)
            except (AttributeError, TypeError):
                row, col = -1, -1
            if not (0 <= row < g.rows and 0 <= col < g.cols):
                raise self._fail(position, f"returned {answer!r}, not an (i, j) action")
            cell = row * g.cols + col
        else:
            try:
                cell = int(answer.__index__()) if not isinstance(answer, int) else answer
            except (AttributeError, TypeError):
                raise self._fail(position, f"returned {answer!r}, not a cell index") from None
        if not position.is_legal(cell):
            raise self._fail(position, f"played the illegal move {cell}")
        return cell

    def _run(self, position: Position, what: str, call: Callable[[], T], own: bool = False) -> T:
        """``call()`` on the user's code: what it raises becomes one line naming the position
        (``own``: tttlab's own AgentError, raised while asking, passes as it is)."""
        try:
            return call()
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            if own and isinstance(error, AgentError):
                raise
            raise self._fail(position, f"{what}raised {raised(error)}") from None

    def _move(self, position: Position) -> int:
        answer = self._run(position, "", lambda: self._ask(position), own=True)
        return self._cell(position, answer)

    def _answer(self, position: Position) -> dict[int, float]:
        """One answer: its move (probability 1), or an agent's move probabilities."""
        if self.convention != "agent":
            return {self._move(position): 1.0}
        found = self._run(
            position,
            "move_probabilities ",
            lambda: {
                int(m.__index__()): float(p)
                for m, p in dict(self.target.move_probabilities(position)).items()
            },
        )
        row = np.zeros((1, self.geometry.cells))
        for move, p in found.items():
            if not position.is_legal(move):
                raise self._fail(position, f"gives the illegal move {move}")
            row[0, move] = p
        check_rows(self.name, self.geometry, np.array([position.cells]), row)
        return found

    def _disagree(self, where: Position, first: object, second: object) -> NotDeterministic:
        self._differed = f"asked {where.to_string('/')} twice, it answered {first}, then {second}"
        return NotDeterministic(f"{self.name} is not deterministic: {self._differed}")

    # -- the agent protocol --------------------------------------------------------------

    def select_move(self, position: Position, rng: np.random.Generator) -> int:
        """One fresh answer (an agent's own ``select_move``), checked."""
        check_playable(self.geometry, position)
        if self.convention != "agent":
            return self._move(position)
        move = self._run(
            position, "select_move ", lambda: int(self.target.select_move(position, rng))
        )
        if not position.is_legal(move):
            raise self._fail(position, f"played the illegal move {move}")
        return move

    def move_probabilities(self, position: Position) -> Mapping[int, float]:
        """Asked twice, and the same both times; or, once two answers differed, the
        average of :data:`SAMPLES` answers."""
        check_playable(self.geometry, position)
        key = position.id
        if key not in self._memo:
            if self.deterministic:
                first, second = self._answer(position), self._answer(position)
                if first != second:
                    raise self._disagree(position, _said(first), _said(second))
                self._memo[key] = first
            else:
                total: dict[int, float] = {}
                for _ in range(SAMPLES):
                    for move, p in self._answer(position).items():
                        total[move] = total.get(move, 0.0) + p / SAMPLES
                self._memo[key] = dict(sorted(total.items()))
            self._asked += 1
        return self._memo[key]

    def probe(self, positions: list[Position]) -> None:
        """Ask each position not known yet once, then each again in a shuffled order, so
        that other positions are asked between its two answers; they must agree (else
        :class:`NotDeterministic`). Afterwards :meth:`move_probabilities` knows them all."""
        todo = list({p.id: p for p in positions if p.id not in self._memo}.values())
        for position in todo:
            check_playable(self.geometry, position)
        if not self.deterministic or len(todo) < 2:
            for position in todo:
                self.move_probabilities(position)
            return
        first = [self._answer(p) for p in todo]
        for i in self.probe_rng.permutation(len(todo)):
            again = self._answer(todo[i])
            if again != first[i]:
                raise self._disagree(todo[i], _said(first[i]), _said(again))
        self._memo.update((p.id, answer) for p, answer in zip(todo, first, strict=True))
        self._asked += len(todo)

    def move_probability_rows(self, boards: npt.NDArray[Any], mover: int) -> Any:
        """Move probabilities for a batch of boards (the proof's), probed as a batch."""
        cells = self.geometry.cells
        positions = [Position(self.geometry, tuple(int(c) for c in b[:cells])) for b in boards]
        self.probe(positions)
        out = np.zeros((len(positions), cells))
        for i, position in enumerate(positions):
            for move, p in self._memo[position.id].items():
                out[i, move] = p
        return out

    def move_values(self, position: Position) -> Mapping[int, float] | None:
        if self.convention != "agent":
            return None

        def values() -> dict[int, float] | None:
            found = self.target.move_values(position)
            return None if found is None else {int(m): float(v) for m, v in found.items()}

        return self._run(position, "move_values ", values)

    def policy_matrix(self, side: Player) -> npt.NDArray[np.float64]:
        """Move probabilities where ``side`` moves (the exact judge's fast path), probed."""
        space = state_space(self.geometry)
        rows = space.decisions(side)
        out = np.zeros((space.size, self.geometry.cells))
        if self.convention in ("batched", "sb3"):
            return self._batched_matrix(space, rows, side, out)
        positions = [space.position(int(i)) for i in rows]
        self.probe(positions)
        for i, position in zip(rows, positions, strict=True):
            for move, p in self.move_probabilities(position).items():
                out[i, move] = p
        return out

    def _batched_matrix(
        self,
        space: StateSpace,
        rows: npt.NDArray[np.intp],
        side: Player,
        out: npt.NDArray[np.float64],
    ) -> npt.NDArray[np.float64]:
        """A batched policy's matrix: every batch asked once, then every position again in
        a shuffled order, in batches of at most half the positions (so never the same call
        twice in a row); or, sampling, each batch :data:`SAMPLES` times."""

        def ask(at: npt.NDArray[np.intp]) -> npt.NDArray[np.int64]:
            observations, masks = _inputs(space, rows[at], int(side))
            moves = self._ask_batch(observations, masks)
            _check_legal(self.name, space, rows[at], moves)
            return moves

        chunks = np.array_split(np.arange(len(rows)), range(_BATCH, len(rows), _BATCH))
        if not self.deterministic:
            for at in chunks:
                for _ in range(SAMPLES):
                    out[rows[at], ask(at)] += 1.0 / SAMPLES
            return out
        first = np.zeros(len(rows), dtype=np.int64)
        again = np.zeros(len(rows), dtype=np.int64)
        for at in chunks:
            first[at] = ask(at)
        order = self.probe_rng.permutation(len(rows))
        half = max(1, min(_BATCH, -(-len(rows) // 2)))
        for s in range(0, len(rows), half):
            at = order[s : s + half]
            again[at] = ask(at)
        if not np.array_equal(first, again):
            bad = int(np.flatnonzero(first != again)[0])
            raise self._disagree(space.position(int(rows[bad])), first[bad], again[bad])
        out[rows, first] = 1.0
        self._asked += len(rows)
        return out


def sampling_if_it_differs(agent: Any, judge: Callable[[], T]) -> T:
    """``judge()``; where user code answered one position two ways, ``judge()`` again from
    :data:`SAMPLES` answers per position (any other agent's NotDeterministic stands)."""
    try:
        return judge()
    except NotDeterministic:
        if not isinstance(agent, UserAgent):
            raise
        agent.sample_instead()
        return judge()


def _said(answer: Mapping[int, float]) -> str:
    """An answer as the error says it: the move, or the probabilities."""
    if len(answer) == 1 and next(iter(answer.values())) == 1.0:
        return str(next(iter(answer)))
    return str(dict(answer))


def _inputs(
    space: StateSpace, rows: npt.NDArray[np.intp], side: int
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    cells = space.boards[rows]
    return planes_of(cells, side, space.geometry), (space.next[rows] >= 0).astype(np.int8)


def _check_legal(
    name: str, space: StateSpace, rows: npt.NDArray[np.intp], moves: npt.NDArray[np.int64]
) -> None:
    cells = space.geometry.cells
    inside = (moves >= 0) & (moves < cells)
    legal = inside.copy()
    legal[inside] = space.next[rows[inside], moves[inside]] >= 0
    if not legal.all():
        bad = int(np.flatnonzero(~legal)[0])
        where = space.position(int(rows[bad])).to_string("/")
        raise AgentError(f"{name} played the illegal move {int(moves[bad])} at position {where}")
