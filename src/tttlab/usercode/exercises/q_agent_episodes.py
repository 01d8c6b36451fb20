"""The truth of ``qlearning(1)`` and ``sarsa(1)`` of the Q-learning text (seed 003), on the
episode the student's code played: the moves checked as a legal game from the empty board,
at ε = 0 each move checked to be the mover's greedy one (X the largest value, O the smallest),
then the text's update recomputed along them from the table the call started from
(:func:`tttlab.usercode.boxside.shapes.q_agent.start`, drawn here again, never read back),
and what the box reported compared with it, entry by entry, in the order of the episode.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..boxside.shapes.q_agent import digits, open_cells, start

if TYPE_CHECKING:
    from tttlab.usercode.cases import ExerciseTruth

__all__ = ["TOLERANCE", "Wrong", "first_wrong", "number", "xo"]

#: How far an entry of ``q`` may be from the text's update.
TOLERANCE = 1e-9
_MARK = {"X": "1", "O": "2"}


@dataclass(frozen=True)
class Wrong:
    """What is wrong, in words, and the board a counterexample draws (``"X.O......"``)."""

    text: str
    board: str = ""


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


@lru_cache(maxsize=4)
def _start(seed: int, leave: float) -> tuple[dict[str, dict[int, float]], frozenset[str]]:
    table, states = start(seed, leave)
    return table, frozenset(states)


@dataclass(frozen=True)
class _Step:
    """One update of the text: ``q[state][action]`` from ``old`` to ``new`` toward
    ``target`` (worded in ``how``)."""

    move: int
    state: str
    action: int
    old: float
    new: float
    how: str


def _game(plays: list[Any], truth: ExerciseTruth) -> tuple[list[str], Wrong | None]:
    """The boards of the episode (``"X.O......"``), and what makes it no legal game from
    the empty board (X first, then O, in turn, until the game ends)."""
    boards = ["." * 9]
    for k, (before, action, mark) in enumerate(plays, 1):
        board = boards[-1]
        i = truth.where[board]
        if truth.terminal[i]:
            return boards, Wrong(
                f"move {k} (cell {_shown(action)}) came after the game ended", board
            )
        if before != digits(board):
            return boards, Wrong(
                f"move {k} was played on a board whose state was {_shown(before)}; the moves "
                f"before it leave {digits(board)!r} (no game from the empty board)",
                board,
            )
        wanted = _MARK[truth.to_move[i]]
        if mark != wanted:
            return boards, Wrong(
                f"move {k} was played as {_shown(mark)}; {wanted!r} moves there "
                "(X, '1', first, then O, '2', in turn)",
                board,
            )
        if action not in truth.legal[i]:
            return boards, Wrong(f"move {k} plays cell {_shown(action)}, which is not open", board)
        boards.append(truth.child[i][action])
    if not truth.terminal[truth.where[boards[-1]]]:
        if not plays:
            return boards, Wrong("it played no move through Board.play")
        return boards, Wrong(f"the episode stopped after {len(plays)} moves, before the game ended")
    return boards, None


def _replay(
    function: str, arg: list[Any], boards: list[str], plays: list[Any], truth: ExerciseTruth
) -> tuple[dict[tuple[str, int], float], list[str], list[_Step]]:
    """The text's updates along the episode: every entry they leave (new states' rows
    included), the states added in order, and each update."""
    seed, _, discount, alpha, leave = arg
    table, states = _start(seed, leave)
    now: dict[tuple[str, int], float] = {}
    added: list[str] = []

    def q(state: str, action: int) -> float:
        return now[(state, action)] if (state, action) in now else table[state][action]

    steps = []
    for k, (_, action, _) in enumerate(plays):
        state, after = digits(boards[k]), digits(boards[k + 1])
        j = truth.where[boards[k + 1]]
        if after not in states and after not in added:
            added.append(after)
            now.update({(after, c): 0.0 for c in open_cells(after)})
        if truth.terminal[j]:
            target, how = (
                float(truth.utility[j]),
                f"the reward {truth.utility[j]} (the game is over)",
            )
        elif function == "qlearning":
            pick, word = (max, "max") if truth.to_move[j] == "X" else (min, "min")
            future = pick(q(after, c) for c in open_cells(after))
            target = 0 + discount * future
            how = f"{discount} * {word}(q[{after!r}].values()) = {discount} * {number(future)}"
        else:
            following = plays[k + 1][1]
            future = q(after, following)
            target = 0 + discount * future
            how = (
                f"{discount} * q[{after!r}][{following}] = {discount} * {number(future)} "
                f"({following}: the move played next)"
            )
        old = q(state, action)
        now[(state, action)] = new = old + alpha * (target - old)
        steps.append(_Step(k + 1, state, action, old, new, how))
    return now, added, steps


def _not_greedy(
    boards: list[str], plays: list[Any], added: list[str], table: dict[str, dict[int, float]]
) -> Wrong | None:
    """The first move of the episode that is not the mover's greedy one under ``q`` as it
    was when the move was chosen (the state's row is updated only after its move: its drawn
    values, or 0.0 throughout for a state the episode added), or None."""
    moves = ", ".join(str(p[1]) for p in plays)
    for k, (_, action, mark) in enumerate(plays):
        state = digits(boards[k])
        row = {c: 0.0 for c in open_cells(state)} if state in added else table[state]
        pick = max if mark == "1" else min
        best = pick(row.values())
        if abs(row[action] - best) > TOLERANCE:
            cells = sorted(c for c, v in row.items() if abs(v - best) <= TOLERANCE)
            who, word = ("X", "largest") if mark == "1" else ("O", "smallest")
            return Wrong(
                f"move {k + 1} ({who} at {action}, q = {number(row[action])}) is not greedy at "
                f"epsilon 0: the {word} value is {number(best)}, at {cells}; the episode {moves}",
                boards[k],
            )
    return None


def _differs(got: Any, wanted: float) -> bool:
    return not (isinstance(got, float) and abs(got - wanted) <= TOLERANCE)  # NaN differs too


def first_wrong(
    function: str, arg: list[Any], value: list[Any], truth: ExerciseTruth
) -> Wrong | None:
    """The first thing wrong with one episode of ``qlearning(1)`` or ``sarsa(1)``, along
    the episode, or None: the game, then each update and each state added (a finished
    state may be added, as the text does, or left out), then any other change to ``q`` or
    ``states``."""
    plays, changed, removed, gained, lost, totals = value
    if totals[0] > len(plays):
        return Wrong(f"it played {totals[0]} moves in one episode")
    boards, wrong = _game(plays, truth)
    if wrong is not None:
        return wrong
    now, added, steps = _replay(function, arg, boards, plays, truth)
    table, _ = _start(arg[0], arg[4])
    if arg[1] == 0:  # at ε = 0 every move is the mover's greedy one
        wrong = _not_greedy(boards, plays, added, table)
        if wrong is not None:
            return wrong
    moves = ", ".join(str(p[1]) for p in plays)
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

    for step in steps:
        key = (step.state, step.action)
        mover = "X" if len(open_cells(step.state)) % 2 else "O"
        old = number(step.old)
        why = (
            f" = {old} + {arg[3]} * (target - {old}), target = {step.how}; move {step.move} "
            f"({mover} at {step.action}) of the episode {moves}"
        )
        if step.state in added:
            if step.state not in gained:
                return Wrong(f"{step.state!r} was reached but not added to states", xo(step.state))
            for c in open_cells(step.state):
                wrong = entry((step.state, c), f" (a new state's row; the episode {moves})")
                if c != step.action and wrong is not None:
                    return wrong
        wrong = entry(key, why)
        if wrong is not None:
            return wrong
    last = digits(boards[-1])
    if last in added and (last in gained or any(k[0] == last for k in reported)):
        if last not in gained:
            return Wrong(f"{last!r} was added to q but not to states", xo(last))
        for c in open_cells(last):
            wrong = entry((last, c), f" (a new state's row; the episode {moves})")
            if wrong is not None:
                return wrong
    for key, found in reported.items():
        if key not in now:
            what = "changed to" if key[1] in table.get(key[0], {}) else "added as"
            return Wrong(
                f"q[{key[0]!r}][{key[1]}] was {what} {_shown(found)}, though the episode "
                f"({moves}) never updates it",
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
            return Wrong(f"states gained {_shown(state)}, which the episode did not add")
    if lost:
        return Wrong(f"states lost {lost[0]!r} ({totals[4]:,} states in all)")
    return None
