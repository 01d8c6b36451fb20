"""The course's TD(0) ``Agent`` and ``play_game`` (seeds 000/001), the grader's side (the
box's: :mod:`tttlab.usercode.boxside.shapes.td_agent`; the plans and the truth:
:mod:`.td_agent_truth`). The agent (``Agent``, or the same agent named ``Player``) plays on
the student's own Environment where it counts as the course does, else on a stand-in. The
box builds the agent as its constructor reads, gives it its table in the container its own
code makes, and reads the table back at the precision it is kept at (float32: compared to
eight units in its last place, :data:`TOLERANCE`).

- ``update``: 60 real games (every length, wins for each seat, draws), each fed to a fresh
  agent (its own seed for the table, its own alpha) as ``play_game`` feeds it, then
  ``update(env)`` on the final board: the table must equal the course's backward sweep
  (``V(s) ← V(s) + α(target − V(s))``, the target starting at ``env.reward(sym)`` and
  becoming each new ``V(s)``, the last state included) to 1e-9 (or the table's own
  precision), no other entry may change, and the history must be empty afterwards.
- ``take_action``: with ε = 0 on 264 positions (24 with ties), the board afterwards differs
  only by the agent's mark in one empty cell whose next state has the largest value; with
  ε = 1 (5 positions) every empty cell is chosen about equally often, and with ε = 0.3 (4
  positions) the greedy cells get their share (1 − ε) + ε·g/n: 300 calls each, exact
  binomial tests, a false-alarm rate of at most 1e-6 for the whole check.
- ``play_game``: with two recording agents (random legal moves) on 10 games (wins for each
  seat, draws): turns alternate from ``p1``, both histories get the state after every move,
  and each agent updates once, at the end, with the final board.
"""

from __future__ import annotations

import ast
import difflib
import re
from typing import TYPE_CHECKING, Any, ClassVar

from ..boxside.shapes.standin import ENVIRONMENT
from . import base
from . import td_agent_truth as tt
from .base import GARBAGE, Case, Exercise, Form

if TYPE_CHECKING:
    from tttlab.usercode.cases import ExerciseTruth
    from tttlab.usercode.report import CheckReport

__all__ = ["TDAgentExercise"]

_BOARD: Form = lambda v: type(v) is str and len(v) == 9 and set(v) <= set("XO.?")  # noqa: E731
_WHO = base.one_of(1, 2)
#: The text's making of the agent in a reproduce line.
_TEXT_MAKING = re.compile(
    r"agent = Agent\(eps=([^,]+), alpha=([^)]+)\); agent\.setV\(V\); "
    r"agent\.set_symbol\(env\.(x|o)\)"
)
_EVENT = base.either(
    base.row(base.one_of("a"), _WHO, _BOARD, base.kind(int)),
    base.row(base.one_of("h"), _WHO, _BOARD, base.either(base.kind(int), GARBAGE)),
    base.row(base.one_of("u"), _WHO, _BOARD, base.one_of(0, 1)),
)
#: The relative (and, below 1, absolute) tolerance on a value of the table, by the
#: precision the box read the table at: eight units in its last place (a right float32
#: sweep is off by about one; a wrong alpha, a forward sweep or a missing entry by far
#: more), and 1e-9 for float64.
TOLERANCE = {"": 1e-9, "float32": 8 * 2.0**-23, "float16": 8 * 2.0**-10}
_PRECISION = base.one_of(*TOLERANCE)


def _close(got: float, want: float, precision: str) -> bool:
    """Within the precision's :data:`TOLERANCE` of ``want`` (NaN is never close)."""
    return abs(got - want) <= TOLERANCE[precision] * max(1.0, abs(want))


def _number(value: float) -> str:
    return f"{value:.6g}"


class TDAgentExercise(Exercise):
    """The course's TD(0) agent: its update, its move, and the game loop."""

    key = "td-agent"
    functions = ("update", "take_action", "play_game")
    #: The course's agent, or the same agent named ``Player`` (graded as it, in a note).
    names = ("Agent|Player", "play_game")
    #: The course's folders often play the game in their main script: without a
    #: ``play_game``, its check is not run (a note says so).
    optional = ("play_game",)
    arity: ClassVar[dict[str, int]] = {"play_game": 3}
    members: ClassVar[dict[str, tuple[str, ...]]] = {"Agent": ("update", "take_action")}
    attributes = (
        "setV",
        "set_symbol",
        "take_action",
        "update_state_history",
        "update",
        "reset_history",
        "state_history",
        "V",
        # the agent's roles, as its constructor, setters or attributes name them
        "eps",
        "alpha",
        "sym",
        "discount",
        "Environment",
        *ENVIRONMENT,
    )
    needs: ClassVar[dict[str, tuple[str, ...]]] = {
        "update": ("Agent|Player",),
        "take_action": ("Agent|Player",),
        "play_game": ("play_game",),
    }
    answer_limits: ClassVar[dict[str, int]] = {"update": 2048, "play_game": 8192}
    forms: ClassVar[dict[str, Form]] = {
        "update": base.row(
            base.listing(base.row(base.kind(int), base.kind(float))),
            base.kind(int),
            base.either(base.kind(int), GARBAGE),
            _PRECISION,
        ),
        "take_action": base.row(
            lambda v: type(v) is list and len(v) == 9 and all(type(c) is int for c in v),
            base.kind(int),
            lambda v: v == "" or _BOARD(v),
            _PRECISION,
        ),
        "play_game": base.row(base.listing(_EVENT), base.kind(bool)),
    }

    def cases(self, truth: ExerciseTruth) -> dict[str, list[Case]]:
        return {
            "update": [Case(b, n, g) for n, (g, b) in enumerate(tt.games(truth))],
            "take_action": [Case(b, r, d) for b, r, d in tt.plan_draws(truth)],
            "play_game": [Case("." * 9, n, s) for n, s in enumerate(tt.plan_seeds(truth))],
        }

    def payload(self, function: str, case: Case) -> Any:
        if function == "update":
            g = case.arg
            return [list(g.moves), g.seat, g.seed, g.alpha]
        if function == "take_action":
            d = case.arg
            return [case.board, d.seed, d.eps, d.calls, [list(o) for o in d.overrides]]
        return case.arg

    # what is wrong with an answer, in words (None: right)

    def _wrong(self, function: str, case: Case, value: Any, truth: ExerciseTruth) -> str | None:
        if function == "update":
            return self._wrong_update(case.arg, value, truth)
        if function == "take_action":
            return self._wrong_move(case, value)
        found = tt.deviation(value[0], value[1], truth)
        return None if found is None else found[0]

    def _wrong_update(self, game: tt.Game, value: Any, truth: ExerciseTruth) -> str | None:
        entries, count, history, precision = value
        got = {s: v for s, v in entries}
        before = tt.table(game.seed)
        after, _ = tt.sweep(game, truth)
        for s, want in after:
            have = got.get(s, before[s]) if 0 <= s < tt.SIZE else before[s]
            if not _close(have, want, precision):
                return f"V[{s}] ({base.grid(tt.board_of(s))}) = {have:.6g}, expected {want:.6g}"
        swept = {s for s, _ in after}
        for s, v in entries:
            if s not in swept:
                real = 0 <= s < tt.SIZE
                where = f" ({base.grid(tt.board_of(s))})" if real else ""
                wanted = f"it unchanged at {before[s]:.6g}" if real else "no such entry"
                return f"V[{s}]{where} changed to {v:.6g}, expected {wanted} (not in the history)"
        if count > len(entries):
            return f"{count} entries of V changed, expected at most {len(after)}"
        if type(history) is not int:
            return (
                f"agent.state_history cannot be read after update ({history[1]}); "
                "--name state_history=YOURS names your history"
            )
        if history != 0:
            return f"the history still holds {history} states after update, expected it emptied"
        return None

    def _wrong_move(self, case: Case, value: Any) -> str | None:
        counts, bad, first, precision = value
        d: tt.Draw = case.arg
        board = case.board
        if bad:
            return self._bad_board(board, first or board, bad, d.calls)
        if (
            sum(counts) != d.calls
            or min(counts) < 0
            or any(counts[k] and board[k] != "." for k in range(9))
        ):
            return f"{sum(counts)} moves counted in {d.calls} calls"
        best, _ = tt.greedy(board, d, precision)
        legal = [k for k, c in enumerate(board) if c == "."]
        if d.calls == 1:
            cell = counts.index(1)
            if cell in best:
                return None
            mark = "X" if board.count("X") == board.count("O") else "O"
            value_of = d.value(tt.state_id(board[:cell] + mark + board[cell + 1 :]))
            return f"cell {tt.cell_name(cell)}, whose next state has V {_number(value_of)}"
        from scipy.stats import binomtest

        if d.eps == 1.0:
            for k in legal:
                test = binomtest(counts[k], d.calls, 1 / len(legal))
                if test.pvalue < d.level:
                    shown = ", ".join(f"{tt.cell_name(c)} {counts[c]}" for c in legal)
                    return (
                        f"cell {tt.cell_name(k)} chosen {counts[k]} times in {d.calls} "
                        f"(p = {test.pvalue:.2g}); per cell: {shown}"
                    )
            return None
        share = sum(counts[k] for k in best)
        wanted = (1 - d.eps) + d.eps * len(best) / len(legal)
        test = binomtest(share, d.calls, wanted)
        if test.pvalue < d.level:
            return (
                f"the greedy {self._cells(best)} in {share} of {d.calls} calls "
                f"({share / d.calls:.1%}, p = {test.pvalue:.2g})"
            )
        return None

    @staticmethod
    def _cells(cells: list[int]) -> str:
        names = ", ".join(tt.cell_name(c) for c in cells)
        return f"cells {names}" if len(cells) > 1 else f"cell {names}"

    def _bad_board(self, board: str, after: str, bad: int, calls: int) -> str:
        changed = [k for k in range(9) if after[k] != board[k]]
        times = f" ({bad} of {calls} calls)" if calls > 1 else ""
        if not changed:
            return f"the board unchanged: no move made{times}"
        if len(changed) > 1:
            return (
                f"{self._cells(changed)} changed, leaving {base.grid(after)}{times}: "
                "a probed cell left marked?"
            )
        k = changed[0]
        return f"cell {tt.cell_name(k)} set to {after[k]!r} on {base.grid(board)}{times}"

    # the verdict's wording

    def right(self, function: str, case: Case, outcome: list[Any], truth: ExerciseTruth) -> bool:
        if outcome[0] != "v" or base.garbage(outcome[1]) is not None:
            return False
        return self._wrong(function, case, outcome[1], truth) is None

    def expected(self, function: str, case: Case, truth: ExerciseTruth) -> str:
        if function == "update":
            game: tt.Game = case.arg
            after, reward = tt.sweep(game, truth)
            return (
                f"the backward sweep over the {len(after)} states from reward {reward} with "
                f"alpha {game.alpha} (V[{after[0][0]}] = {_number(after[0][1])} first), "
                "no other entry changed, the history emptied"
            )
        if function == "take_action":
            d: tt.Draw = case.arg
            best, top = tt.greedy(case.board, d)
            legal = case.board.count(".")
            rate = f"exact binomial tests, false-alarm rate at most {tt.FALSE_ALARM:g} per check"
            if d.calls == 1:
                return f"one move, into the greedy {self._cells(best)} (V {_number(top)})"
            if d.eps == 1.0:
                return (
                    f"each of the {legal} empty cells about equally often ({d.calls} calls; {rate})"
                )
            share = (1 - d.eps) + d.eps * len(best) / legal
            return (
                f"the greedy {self._cells(best)} in {share:.1%} of {d.calls} calls: "
                f"(1 - eps) + eps*{len(best)}/{legal} ({rate})"
            )
        return (
            "p1 (x) and p2 (o) take turns from p1 until the game is over, both agents "
            "update_state_history(the state after each move), then p1.update(env) and "
            "p2.update(env) once each"
        )

    def answer(self, function: str) -> str:
        return {"update": "table", "take_action": "move", "play_game": "game"}[function]

    def shown(self, function: str, outcome: list[Any], case: Case, truth: ExerciseTruth) -> str:
        return self._wrong(function, case, outcome[1], truth) or "right"

    def board_shown(self, function: str, case: Case, outcome: list[Any]) -> str:
        if function != "play_game":
            return case.board
        if outcome[0] != "v" or base.garbage(outcome[1]) is not None:
            return ""
        from tttlab.usercode.cases import exercise_truth

        found = tt.deviation(outcome[1][0], outcome[1][1], exercise_truth())
        return "" if found is None else found[1]

    def call(self, function: str, case: Case) -> str:
        return {
            "update": "agent.update(env)",
            "take_action": "agent.take_action(env)",
            "play_game": "play_game(p1, p2, env)",
        }[function]

    def repro(self, function: str, case: Case, expected: str, got: str) -> str:
        if function == "play_game":
            return (
                f"play_game(p1, p2, Environment()) with two agents that play random legal "
                f"moves (seed {case.arg}) and record the calls: {got}"
            )
        if function == "update":
            game: tt.Game = case.arg
            seat, moves = game.seat.lower(), " ".join(tt.cell_name(c) for c in game.moves)
            return (
                f"r = random.Random({game.seed}); V = np.array([r.random() for _ in "
                f"range(3**9)]); agent = Agent(eps=0.1, alpha={game.alpha}); agent.setV(V); "
                f"agent.set_symbol(env.{seat}); on env = Environment() play {moves} (x first), "
                f"calling agent.update_state_history(env.get_state()) after each move; "
                f"agent.update(env): {got}"
            )
        d: tt.Draw = case.arg
        mark = "x" if case.board.count("X") == case.board.count("O") else "o"
        overrides = "".join(f"; V[{s}] = {v:g}" for s, v in d.overrides)
        times = f" {d.calls} times on fresh copies" if d.calls > 1 else ""
        return (
            f"r = random.Random({d.seed}); V = np.array([r.random() for _ in range(3**9)])"
            f"{overrides}; agent = Agent(eps={d.eps:g}, alpha=0.5); agent.setV(V); "
            f"agent.set_symbol(env.{mark}); env.board = {base.grid(case.board)} (x = -1, "
            f"o = 1); np.random.seed({d.seed}); random.seed({d.seed}); "
            f"agent.take_action(env){times}: "
            f"expected {expected}; got {got}"
        )

    def made(self, repro: str, making: list[str]) -> str:
        """The text's making of the agent in ``repro`` replaced by the student's, as the box
        made it (``agent = Agent(which_player='X', eps=0.1, alpha=0.5); agent.V = V``)."""
        if len(making) != 3:
            return repro

        def theirs(found: re.Match[str]) -> str:
            eps, alpha, seat = found.group(1), found.group(2), making[1 + (found[3] == "o")]
            values = {"eps": eps, "alpha": alpha, "sym": seat}
            return re.sub(r"\{(eps|alpha|sym)\}", lambda m: values[m.group(1)], making[0])

        return _TEXT_MAKING.sub(theirs, repro, count=1)

    def hints(self, sources: dict[str, str], report: CheckReport) -> list[str]:
        """One line for each attribute that a failed ``update`` or ``take_action`` could not
        find and that no method of its class sets (``self.aplha`` set, ``self.alpha`` read)."""
        missing = {}
        for check in ("update", "take_action"):
            found = report.checks.get(check)
            example = found.example if found is not None else None
            if example is not None and "AttributeError" in example.got:
                missing[check] = example.got
        found_lines: list[str] = []
        for name, text in sources.items() if missing else ():
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                continue
            for node in tree.body:
                if isinstance(node, ast.ClassDef) and not node.bases:
                    found_lines += _unset(name, node, missing)
        return found_lines


def _unset(name: str, cls: ast.ClassDef, missing: dict[str, str]) -> list[str]:
    """One line for each ``self.NAME`` that a method named in ``missing`` reads, that its
    failure names, and that the class never sets nor defines."""
    own = set()
    for item in cls.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            own.add(item.name)
        elif isinstance(item, ast.Assign | ast.AnnAssign):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            own |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    assigned = set()
    for node in ast.walk(cls):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for t in ast.walk(target):
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name):
                    assigned |= {t.attr} if t.value.id == "self" else set()
    lines = []
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef) or method.name not in missing:
            continue
        for node in ast.walk(method):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
                and node.attr not in assigned | own
                and f"'{node.attr}'" in missing[method.name]
            ):
                like = difflib.get_close_matches(node.attr, sorted(assigned), n=1)
                sets = f" (it sets self.{like[0]})" if like else ""
                lines.append(
                    f"{name} line {node.lineno}: {cls.name}.{method.name} reads "
                    f"self.{node.attr}, which no method of {cls.name} sets{sets}"
                )
                break
    return lines
