"""Grade the exercise's functions on every reachable board: ``ttt check`` for CS50's
tic-tac-toe (``X``, ``O``, ``EMPTY``, ``initial_state``, ``player``, ``actions``,
``result``, ``winner``, ``terminal``, ``utility``, ``minimax``).

The student's module runs in a child process (:mod:`tttlab.usercode.sandbox`); this side
plans the calls, in the order cheap first (minimax on the empty board last), and compares
what came back with tttlab's rules and solver (:mod:`tttlab.usercode.cases`).

As the exercise allows, ``player`` and ``actions`` are checked on boards where the game
goes on only, ``utility`` on finished boards only.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tttlab.game import Position
from tttlab.render import board_text
from tttlab.usercode.cases import OUT_OF_RANGE, ExerciseTruth, exercise_truth
from tttlab.usercode.report import CheckReport, Example, FunctionCheck
from tttlab.usercode.sandbox import Job, RawRun, run_job

__all__ = ["CS50_FUNCTIONS", "CS50_NAMES", "check_cs50", "find_module", "plan"]

#: The checks, in the order they run and are reported.
CS50_FUNCTIONS = ("winner", "terminal", "utility", "player", "actions", "result", "minimax")
CS50_NAMES = ("X", "O", "EMPTY", "initial_state", *CS50_FUNCTIONS)


@dataclass(frozen=True)
class Case:
    """One planned call: the board (an index into the truth), the action for ``result``,
    and whether that action is invalid."""

    board: int
    action: tuple[int, int] | None = None
    invalid: bool = False


@dataclass
class Plan:
    cases: dict[str, list[Case]] = field(default_factory=dict)
    only: tuple[str, ...] = ()

    def job_phases(self, truth: ExerciseTruth) -> list[tuple[str, list[Any]]]:
        phases: list[tuple[str, list[Any]]] = []
        for function, cases in self.cases.items():
            if function == "result":
                items: list[Any] = [[truth.boards[c.board], list(c.action or ())] for c in cases]
            else:
                items = [truth.boards[c.board] for c in cases]
            phases.append((function, items))
        return phases


def plan(truth: ExerciseTruth, only: tuple[str, ...] = ()) -> Plan:
    """Every call to make, cheap ones first (of the functions in ``only``, when given)."""
    everything = list(range(truth.size))
    decisions = truth.decisions()
    result: list[Case] = []
    for i in decisions:
        result += [Case(i, divmod(m, 3)) for m in truth.legal[i]]
    for i in decisions:
        occupied = [m for m in range(9) if truth.boards[i][m] != "."]
        result += [Case(i, divmod(m, 3), invalid=True) for m in occupied]
        result += [Case(i, a, invalid=True) for a in OUT_OF_RANGE]
    # minimax costs about the size of the game tree below a board: the fullest boards first.
    minimax = [Case(i) for i in truth.terminals()]
    minimax += [Case(i) for i in sorted(decisions, key=lambda i: -truth.ply[i])]
    cases = {
        "winner": [Case(i) for i in everything],
        "terminal": [Case(i) for i in everything],
        "utility": [Case(i) for i in truth.terminals()],
        "player": [Case(i) for i in decisions],
        "actions": [Case(i) for i in decisions],
        "result": result,
        "minimax": minimax,
    }
    return Plan({f: c for f, c in cases.items() if not only or f in only}, only)


def _grid(board: str) -> str:
    return "/".join(board[r * 3 : r * 3 + 3] for r in range(3))


def _literal(board: str) -> str:
    name = {"X": "X", "O": "O", ".": "EMPTY"}
    rows = ("[" + ", ".join(name[c] for c in board[r * 3 : r * 3 + 3]) + "]" for r in range(3))
    return "[" + ", ".join(rows) + "]"


def _symbol(s: str) -> str:
    return "None" if s == "." else s


def _actions(cells: list[int] | tuple[int, ...]) -> str:
    return "{" + ", ".join(str(divmod(c, 3)) for c in cells) + "}" if cells else "set()"


def _got(function: str, outcome: list[Any]) -> str:
    kind = outcome[0]
    if kind == "e":
        return f"raised {outcome[1]}"
    if kind == "x":
        return f"called sys.exit({'' if outcome[1] == 'None' else outcome[1]})"
    if kind == "i":
        return "called input()"
    if kind == "t":
        return "did not return within the per-call time limit"
    value = outcome[1]
    if isinstance(value, list) and value[:1] == ["g"]:
        return f"{value[1]} (not a valid {_kind(function)})"
    if function in ("player", "winner"):
        return _symbol(value)
    if function == "actions":
        return _actions(value)
    if function == "minimax":
        return "None" if value is None else str(divmod(value, 3))
    if function == "result":
        return (
            _literal(value)
            if "changed" not in outcome
            else f"{_literal(value)}, and the input board was modified"
        )
    return str(value)


def _kind(function: str) -> str:
    return {
        "player": "player",
        "winner": "winner",
        "terminal": "bool",
        "utility": "utility",
        "actions": "set of (i, j) actions",
        "minimax": "(i, j) action",
        "result": "board",
    }[function]


def _expected(function: str, case: Case, truth: ExerciseTruth) -> str:
    i = case.board
    if function == "player":
        return truth.to_move[i]
    if function == "winner":
        return "None" if truth.winner[i] == "." else truth.winner[i]
    if function == "terminal":
        return str(truth.terminal[i])
    if function == "utility":
        return str(truth.utility[i])
    if function == "actions":
        return _actions(truth.legal[i])
    if function == "result":
        if case.invalid:
            return "an exception"
        assert case.action is not None
        return _literal(truth.child[i][case.action[0] * 3 + case.action[1]]) + ", input unchanged"
    if truth.terminal[i]:
        return "None (the game is over)"
    moves = ", ".join(str(divmod(m, 3)) for m in sorted(truth.optimal[i]))
    value = {1: "X wins", 0: "a draw", -1: "O wins"}[truth.value[i]]
    return f"one of {moves} (keeps the game value: {value})"


def _right(function: str, case: Case, outcome: list[Any], truth: ExerciseTruth) -> bool:
    i = case.board
    if function == "result" and case.invalid:
        return bool(outcome[0] == "e")
    if outcome[0] != "v" or "changed" in outcome:
        return False
    value = outcome[1]
    if function == "winner":
        return bool(value == truth.winner[i])
    if function == "terminal":
        return bool(value is truth.terminal[i])
    if function == "utility":
        return bool(value == truth.utility[i])
    if function == "player":
        return bool(value == truth.to_move[i])
    if function == "actions":
        return bool(value == list(truth.legal[i]))
    if function == "result":
        assert case.action is not None
        return bool(value == truth.child[i][case.action[0] * 3 + case.action[1]])
    if truth.terminal[i]:
        return value is None
    return isinstance(value, int) and value in truth.optimal[i]


def _call_text(function: str, case: Case) -> str:
    if function == "result":
        return f"result(board, {case.action})"
    return f"{function}(board)"


def _example(function: str, case: Case, outcome: list[Any], truth: ExerciseTruth) -> Example:
    board = truth.boards[case.board]
    expected = _expected(function, case, truth)
    got = _got(function, outcome)
    args = _literal(board) + (f", {case.action}" if function == "result" else "")
    wanted = (
        "should raise an exception" if expected == "an exception" else f"should return {expected}"
    )
    return Example(
        board=_grid(board),
        call=_call_text(function, case),
        expected=expected,
        got=got,
        repro=f"{function}({args}) {wanted}, got {got}",
        drawing=board_text(Position.from_string(board), numbers=False),
    )


def _grade(function: str, cases: list[Case], raw: RawRun, truth: ExerciseTruth) -> FunctionCheck:
    outcomes = raw.results.get(function, [])
    checked = min(len(outcomes), len(cases))
    wrong = 0
    first: tuple[int, Case, list[Any]] | None = None
    for case, outcome in zip(cases, outcomes, strict=False):
        if not _right(function, case, outcome, truth):
            wrong += 1
            key = case.board
            if first is None or key < first[0]:
                first = (key, case, outcome)
    legal = sum(not c.invalid for c in cases)
    extra: dict[str, Any] = {}
    if function == "result":
        done = cases[:checked]
        extra = {"invalid_checked": sum(c.invalid for c in done)}
        checked_count = sum(not c.invalid for c in done)
    else:
        checked_count = checked
    example = None if first is None else _example(function, first[1], first[2], truth)
    return FunctionCheck(
        name=function,
        ok=wrong == 0 and checked == len(cases),
        checked=checked_count,
        planned=legal,
        wrong=wrong,
        example=example,
        extra=extra,
    )


def _import_problem(raw: RawRun, limit: float) -> str | None:
    if raw.imported is None:
        return None
    kind = raw.imported[0]
    if kind == "v":
        return None
    if kind == "e":
        return f"does not import: {raw.imported[1]}"
    if kind == "x":
        return "calls sys.exit() when imported"
    if kind == "i":
        return 'calls input() when imported (keep the game loop under `if __name__ == "__main__":`)'
    return f"takes more than {limit:g} s to import"


def _problems(raw: RawRun, job: Job, plan_: Plan, truth: ExerciseTruth) -> list[str]:
    problems: list[str] = []
    if raw.imported is None:
        detail = raw.stderr.splitlines()[-1] if raw.stderr else f"exit code {raw.returncode}"
        if raw.timed_out:
            detail = (
                f"it did not finish importing within {job.time_limit:g} s "
                "(a loop, or a game started, at import?)"
            )
        problems.append(f"could not be run: {detail}")
        return problems
    trouble = _import_problem(raw, job.as_json()["import_seconds"])
    if trouble:
        problems.append(trouble)
        return problems
    if raw.missing:
        problems.append(f"does not define: {', '.join(raw.missing)}")
        return problems
    if raw.constants:
        problems.append(f"X, O and EMPTY cannot be compared: {raw.constants}")
        return problems
    for function, outcomes in raw.results.items():
        if outcomes and outcomes[-1][0] == "t":
            case = plan_.cases[function][len(outcomes) - 1]
            problems.append(
                f"{function} did not return within {job.call_seconds:g} s on "
                f"{_grid(truth.boards[case.board])}; its later boards were skipped"
            )
    running = next((f for f in plan_.cases if f in raw.results and f not in raw.finished), None)
    if running is not None:
        done = len(raw.results[running])
        cases = plan_.cases[running]
        where = f" on {_grid(truth.boards[cases[done].board])}" if done < len(cases) else ""
        if raw.timed_out:
            problems.append(f"stopped at the time limit ({job.time_limit:g} s) in {running}{where}")
        else:
            how = raw.stderr.splitlines()[-1] if raw.stderr else f"exit code {raw.returncode}"
            if raw.returncode == -signal.SIGKILL:
                how = f"killed (exit code -9; over the memory limit of {job.memory_mb} MB?)"
            problems.append(f"the process died in {running}{where}: {how}")
    elif raw.timed_out:
        problems.append(f"stopped at the time limit ({job.time_limit:g} s)")
    return problems


def check_cs50(
    path: Path,
    *,
    time_limit: float = 120.0,
    memory_mb: int = 1024,
    call_seconds: float = 5.0,
    only: tuple[str, ...] = (),
) -> CheckReport:
    """Grade the CS50 tic-tac-toe module at ``path`` on every reachable board (only the
    functions in ``only``, when given)."""
    truth = exercise_truth()
    calls = plan(truth, only)
    job = Job(path, CS50_NAMES, calls.job_phases(truth), time_limit, memory_mb, call_seconds)
    raw = run_job(job)
    return grade(path, raw, job, calls, truth)


def grade(path: Path, raw: RawRun, job: Job, calls: Plan, truth: ExerciseTruth) -> CheckReport:
    """The report for what the child sent back."""
    problems = _problems(raw, job, calls, truth)
    checks = {}
    if not calls.only or "initial_state" in calls.only:
        checks["initial_state"] = _initial_check(raw)
    checks.update({f: _grade(f, c, raw, truth) for f, c in calls.cases.items()})
    planned = sum(len(c) for c in calls.cases.values()) + ("initial_state" in checks)
    done = sum(min(len(raw.results.get(f, [])), len(c)) for f, c in calls.cases.items())
    done += "initial_state" in checks and raw.initial_state is not None
    empty = raw.results.get("minimax", [])
    empty_seconds = None
    if empty and len(empty) == len(calls.cases.get("minimax", ())) and empty[-1][0] == "v":
        empty_seconds = empty[-1][-1]
    notes = []
    if raw.printed:
        first = f"; the first: {raw.first_print!r}" if raw.first_print else ""
        notes.append(f"prints while being graded ({raw.printed:,} times{first})")
    return CheckReport(
        file=str(path),
        exercise="cs50",
        checks=checks,
        coverage=done / max(planned, 1),
        minimax_seconds_empty_board=empty_seconds,
        problems=tuple(problems),
        notes=tuple(notes),
        seconds=raw.seconds,
    )


def _initial_check(raw: RawRun) -> FunctionCheck:
    got = raw.initial_state
    if got is None:  # never reached
        return FunctionCheck("initial_state", ok=False, checked=0, planned=1, wrong=0, example=None)
    if got == "." * 9:
        return FunctionCheck("initial_state", ok=True, checked=1, planned=1, wrong=0, example=None)
    failed = isinstance(got, list) and got[:1] in (["e"], ["x"], ["i"], ["t"])
    shown = _got("result", got if failed else ["v", got])
    empty = _literal("." * 9)
    example = Example(
        board="",
        call="initial_state()",
        expected=empty,
        got=shown,
        repro=f"initial_state() should return {empty}, got {shown}",
    )
    return FunctionCheck("initial_state", ok=False, checked=1, planned=1, wrong=1, example=example)


def find_module(folder: Path) -> Path | None:
    """The exercise's file in a folder: ``tictactoe.py`` when it is there, else the first
    .py file (by name) that defines ``minimax``."""
    preferred = folder / "tictactoe.py"
    if preferred.is_file():
        return preferred
    for path in sorted(folder.glob("*.py")):
        try:
            if "def minimax(" in path.read_text(errors="replace"):
                return path
        except OSError:
            continue
    return None
