"""The truth of ``qlearning(n)`` and ``sarsa(n)`` of the Q-learning text (seed 003), on the
episodes the student's code played: the moves checked as ``n`` legal games, each from the
empty board (a new ``Board`` each episode), each move leaving the board with the mover's
mark in its cell (in whatever form the marks were given: the student's own ``Board`` writes
them); at ε = 0 each move the mover's greedy one (X the largest value, O the smallest); then
the text's update recomputed along them from the table the call started from
(:func:`tttlab.usercode.boxside.shapes.q_agent.start`, drawn here again, never read back),
and what the box reported compared with it, entry by entry, in the order of the episodes;
and at ε > 0, over several episodes, the moves tested against the ε-greedy shares
(:mod:`.q_agent_shares`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..boxside.schema import visible
from ..boxside.shapes.q_agent import Drawn, digits, open_cells
from .q_agent_shares import Draw, judged

if TYPE_CHECKING:
    from tttlab.usercode.cases import ExerciseTruth

__all__ = ["TOLERANCE", "Move", "Wrong", "first_wrong", "games", "number", "xo"]

#: How far an entry of ``q`` may be from the text's update.
TOLERANCE = 1e-9
_MARK = {"X": "1", "O": "2"}
_TEN = math.log(10)


@lru_cache(maxsize=4)
def _drawn(seed: int, leave: float) -> Drawn:
    """The table the call started from (:func:`~tttlab.usercode.boxside.shapes.q_agent.start`),
    drawn here again, its rows as they are read."""
    return Drawn(seed, leave)


@dataclass(frozen=True)
class Wrong:
    """What is wrong, in words, and the board a counterexample draws (``"X.O......"``)."""

    text: str
    board: str = ""


@dataclass(frozen=True)
class Move:
    """One move of a learning call: the boards before and after (``"X.O......"``), the
    cell, the mark as it was given (its repr), its episode, and whether it opened it."""

    before: str
    action: int
    after: str
    mark: str
    episode: int
    first: bool


def xo(state: str) -> str:
    """``"102000000"`` → ``"X.O......"``."""
    return state.replace("0", ".").replace("1", "X").replace("2", "O")


def number(value: float) -> str:
    """A value to 6 significant digits (0.0 as such: a row's start)."""
    return "0.0" if value == 0 else f"{value:.6g}"


def _shown(value: Any) -> str:
    """A value the box reported (garbage as the repr it carries)."""
    if isinstance(value, list) and value[:1] == ["g"]:
        return str(value[1])
    return number(value) if isinstance(value, float) else repr(value)


def _played(k: int, board: str, play: list[Any], truth: ExerciseTruth) -> Wrong | None:
    """What is wrong with move ``k`` on ``board`` (``[before, action, mark, after]``)."""
    before, action, given, after = play
    mark = visible(given)  # the student's repr: shown, never obeyed
    i = truth.where[board]
    if before != digits(board):
        return Wrong(
            f"move {k} was played on a board whose state was {_shown(before)}; the moves "
            f"before it leave {digits(board)!r} (no game from the empty board)",
            board,
        )
    if action not in truth.legal[i]:
        return Wrong(f"move {k} plays cell {_shown(action)}, which is not open", board)
    wanted = digits(truth.child[i][action])
    if after == wanted:
        return None
    digit = _MARK[truth.to_move[i]]
    same = isinstance(after, str) and len(after) == len(wanted)
    same = same and all(after[c] == w for c, w in enumerate(wanted) if c != action)
    if same:
        return Wrong(
            f"move {k} was played as {mark}; {digit!r} moves there (X, '1', first, then O, "
            f"'2', in turn), and Board.play({action}, {mark}) wrote {after[action]!r} there",
            board,
        )
    return Wrong(
        f"move {k}: Board.play({action}, {mark}) left the state {_shown(after)}; the mover's "
        f"{digit!r} in cell {action} gives {wanted!r}",
        board,
    )


def games(plays: list[Any], episodes: int, truth: ExerciseTruth) -> tuple[list[Move], Wrong | None]:
    """The moves of the call, and what makes them no ``episodes`` legal games, each from
    the empty board (X first, then O, in turn, until the game ends)."""
    moves: list[Move] = []
    board, episode, first = "." * 9, 1, True
    for k, play in enumerate(plays, 1):
        before, action = play[0], play[1]
        if truth.terminal[truth.where[board]]:
            if episode == episodes:
                after = "the game ended" if episodes == 1 else f"the {episodes} episodes ended"
                return moves, Wrong(f"move {k} (cell {_shown(action)}) came after {after}", board)
            episode, first = episode + 1, True
            if before != digits("." * 9):
                return moves, Wrong(
                    f"episode {episode} of {episodes} did not start from an empty board: its "
                    f"first move (cell {_shown(action)}) was played on {_shown(before)}, where "
                    f"episode {episode - 1} ended (each episode starts with a new Board())",
                    board,
                )
            board = "." * 9
        wrong = _played(k, board, play, truth)
        if wrong is not None:
            return moves, wrong
        after = truth.child[truth.where[board]][action]
        moves.append(Move(board, action, after, play[2], episode, first))
        board, first = after, False
    if not truth.terminal[truth.where[board]]:
        if not plays:
            return moves, Wrong("it played no move through Board.play")
        which = "the episode" if episodes == 1 else f"episode {episode} of {episodes}"
        return moves, Wrong(
            f"{which} stopped after {sum(m.episode == episode for m in moves)} moves, "
            "before the game ended",
            board,
        )
    if episode < episodes:
        return moves, Wrong(
            f"{episodes} episodes asked for, {episode} played: each episode starts from an "
            "empty board (a new Board()) and plays to the end of its game"
        )
    return moves, None


@dataclass(frozen=True)
class _Step:
    """One update of the text: ``q[state][action]`` from ``old`` to ``new`` toward
    ``target`` (worded in ``how``); ``row`` is the state's row when the move was chosen."""

    move: int
    state: str
    action: int
    old: float
    new: float
    how: str
    row: dict[int, float]


def _replay(
    function: str, arg: list[Any], moves: list[Move], truth: ExerciseTruth
) -> tuple[dict[tuple[str, int], float], list[str], list[_Step]]:
    """The text's updates along the moves: every entry they leave (new states' rows
    included), the states added in order, and each update."""
    seed, _, discount, alpha, leave, _ = arg
    table = _drawn(seed, leave)
    now: dict[tuple[str, int], float] = {}
    added: list[str] = []

    def q(state: str, action: int) -> float:
        return now[(state, action)] if (state, action) in now else table[state][action]

    steps = []
    for k, move in enumerate(moves):
        state, after = digits(move.before), digits(move.after)
        row = {c: q(state, c) for c in open_cells(state)}
        j = truth.where[move.after]
        if after not in table and after not in added:
            added.append(after)
            now.update({(after, c): 0.0 for c in open_cells(after)})
        if truth.terminal[j]:
            target = float(truth.utility[j])
            how = f"the reward {truth.utility[j]} (the game is over)"
        elif function == "qlearning":
            pick, word = (max, "max") if truth.to_move[j] == "X" else (min, "min")
            future = pick(q(after, c) for c in open_cells(after))
            target = 0 + discount * future
            how = f"{discount} * {word}(q[{after!r}].values()) = {discount} * {number(future)}"
        else:
            following = moves[k + 1].action
            future = q(after, following)
            target = 0 + discount * future
            how = (
                f"{discount} * q[{after!r}][{following}] = {discount} * {number(future)} "
                f"({following}: the move played next)"
            )
        old = row[move.action]
        now[(state, move.action)] = new = old + alpha * (target - old)
        steps.append(_Step(k + 1, state, move.action, old, new, how, row))
    return now, added, steps


def _greedy(row: dict[int, float], mover: str) -> tuple[float, list[int]]:
    best = (max if mover == "X" else min)(row.values())
    return best, sorted(c for c, v in row.items() if abs(v - best) <= TOLERANCE)


def _not_greedy(moves: list[Move], steps: list[_Step], truth: ExerciseTruth) -> Wrong | None:
    """The first move that is not the mover's greedy one under ``q`` as it was when the
    move was chosen, or None."""
    played = ", ".join(str(m.action) for m in moves)
    for move, step in zip(moves, steps, strict=True):
        mover = truth.to_move[truth.where[move.before]]
        best, cells = _greedy(step.row, mover)
        if move.action not in cells:
            word = "largest" if mover == "X" else "smallest"
            return Wrong(
                f"move {step.move} ({mover} at {move.action}, q = {number(step.row[move.action])})"
                f" is not greedy at epsilon 0: the {word} value is {number(best)}, at {cells}; "
                f"the moves {played}",
                move.before,
            )
    return None


def _shares(
    moves: list[Move], steps: list[_Step], epsilon: float, alarm: float, truth: ExerciseTruth
) -> Wrong | None:
    """The moves against the ε-greedy shares (:func:`.q_agent_shares.judged`), or None."""
    draws = []
    for move, step in zip(moves, steps, strict=True):
        _, cells = _greedy(step.row, truth.to_move[truth.where[move.before]])
        draws.append(Draw(tuple(sorted(step.row)), frozenset(cells), move.action, move.first))
    verdict = judged(draws, epsilon, alarm)
    if not verdict.rejected:
        return None
    return Wrong(
        f"the moves do not follow the epsilon-greedy shares at epsilon {epsilon}: "
        f"{verdict.greedy} of its {verdict.moves} moves were greedy, where the text's "
        f"choose_action plays {verdict.expected:.1f} on average, and the likeliest departure "
        f"is {verdict.likeliest} (a likelihood ratio of 10^{verdict.log_evidence / _TEN:.1f} "
        f"against the text's shares; one of 10^{-math.log(alarm) / _TEN:.1f} or more has a "
        f"chance of at most {alarm:.2g} when the code is the text's)"
    )


def _differs(got: Any, wanted: float) -> bool:
    return not (isinstance(got, float) and abs(got - wanted) <= TOLERANCE)  # NaN differs too


def first_wrong(
    function: str, arg: list[Any], value: list[Any], truth: ExerciseTruth, alarm: float
) -> Wrong | None:
    """The first thing wrong with ``qlearning(n)`` or ``sarsa(n)`` (``arg``: seed, ε, γ,
    α, the share of states left out, n), or None: the games, then each entry of ``q`` at
    its last update and each state added (a finished state may be added, as the text does,
    with its open actions at 0.0 or with an empty row, or left out), then any other change
    to ``q`` or ``states``, then at ε > 0 over several episodes the moves' shares, tested
    at false alarms of at most ``alarm``."""
    plays, changed, removed, gained, lost, totals = value
    episodes = arg[5]
    if totals[0] > len(plays):
        return Wrong(f"it played {totals[0]:,} moves in {episodes} episode(s)")
    moves, wrong = games(plays, episodes, truth)
    if wrong is not None:
        return wrong
    now, added, steps = _replay(function, arg, moves, truth)
    table = _drawn(arg[0], arg[4])
    if arg[1] == 0:  # at ε = 0 every move is the mover's greedy one
        wrong = _not_greedy(moves, steps, truth)
        if wrong is not None:
            return wrong
    wrong = _entries(arg, moves, changed, removed, gained, lost, totals, now, added, steps, table)
    if wrong is not None:
        return wrong
    if arg[1] > 0 and episodes > 1:
        return _shares(moves, steps, arg[1], alarm, truth)
    return None


def _entries(
    arg: list[Any],
    moves: list[Move],
    changed: list[Any],
    removed: list[Any],
    gained: list[Any],
    lost: list[Any],
    totals: list[int],
    now: dict[tuple[str, int], float],
    added: list[str],
    steps: list[_Step],
    table: Drawn,
) -> Wrong | None:
    """The first entry of ``q`` or state that differs from the text's updates, or None."""
    played = ", ".join(str(m.action) for m in moves)
    reported: dict[tuple[str, int], Any] = {}
    for state, action, found in changed:
        if not isinstance(state, str) or not isinstance(action, int):
            return Wrong(f"q holds an entry q[{_shown(state)}][{_shown(action)}] = {_shown(found)}")
        reported[(state, action)] = found
    gone = {(state, action) for state, action in removed}

    def got(key: tuple[str, int]) -> Any:
        if key in reported:
            return reported[key]
        if key in gone or key[0] not in table or key[1] not in table[key[0]]:
            return None
        return table[key[0]][key[1]]

    def entry(key: tuple[str, int], why: str) -> Wrong | None:
        found, wanted = got(key), now[key]
        if found is None or _differs(found, wanted):
            shown, text = ("missing" if found is None else _shown(found)), number(wanted)
            if isinstance(found, float) and _shown(found) == text:
                shown, text = repr(found), repr(wanted)
            return Wrong(f"q[{key[0]!r}][{key[1]}] is {shown}, expected {text}{why}", xo(key[0]))
        return None

    last = {(s.state, s.action): s.move for s in steps}
    rowed: set[str] = set()
    for step in steps:
        key = (step.state, step.action)
        if step.state in added and step.state not in rowed:  # a new state's row, once
            rowed.add(step.state)
            if step.state not in gained:
                return Wrong(f"{step.state!r} was reached but not added to states", xo(step.state))
            for c in open_cells(step.state):
                if (step.state, c) not in last:
                    wrong = entry((step.state, c), f" (a new state's row; the moves {played})")
                    if wrong is not None:
                        return wrong
        if last[key] != step.move:
            continue  # checked at its last update
        mover = "X" if len(open_cells(step.state)) % 2 else "O"
        old = number(step.old)
        why = (
            f" = {old} + {arg[3]} * (target - {old}), target = {step.how}; move {step.move} "
            f"({mover} at {step.action}) of the moves {played}"
        )
        wrong = entry(key, why)
        if wrong is not None:
            return wrong
    ends = dict.fromkeys(digits(m.after) for m in moves)  # the finished states, less rowed
    for state in (s for s in ends if s in added and s not in rowed):
        keys = [k for k in reported if k[0] == state]
        if keys and state not in gained:
            return Wrong(f"{state!r} was added to q but not to states", xo(state))
        if keys:  # its row, if it has one, is its open actions at 0.0, or empty
            for c in open_cells(state):
                wrong = entry((state, c), f" (a new finished state's row; the moves {played})")
                if wrong is not None:
                    return wrong
    for key, found in reported.items():
        if key not in now:
            what = "changed to" if key[1] in table.get(key[0], {}) else "added as"
            return Wrong(
                f"q[{key[0]!r}][{key[1]}] was {what} {_shown(found)}, though the moves "
                f"({played}) never update it",
                xo(key[0]),
            )
    if totals[1] > len(changed):
        return Wrong(f"{totals[1]:,} entries of q changed; one episode updates at most 9")
    leftover = sorted(gone - set(now))
    if leftover:
        state, action = leftover[0]
        return Wrong(
            f"q[{state!r}][{action}] is gone ({totals[2]:,} entries of the table were removed)",
            xo(state),
        )
    for state in gained:
        if state not in added:
            return Wrong(f"states gained {_shown(state)}, which the episodes did not add")
    if lost:
        return Wrong(f"states lost {lost[0]!r} ({totals[4]:,} states in all)")
    return None
