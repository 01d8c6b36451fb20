"""What every exercise shares on the grader's side of ``ttt check`` (:class:`Exercise`): the
calls to make (cheap ones first), the form of each value the box's side of the shape
(:mod:`tttlab.usercode.boxside.shapes`) writes (anything else was written by something else in
the box: a wrong answer, never graded as one), what is right against the truth, and how to
word a counterexample.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..boxside.schema import describe, visible

if TYPE_CHECKING:
    from tttlab.usercode.cases import ExerciseTruth
    from tttlab.usercode.report import CheckReport

__all__ = [
    "BOARD",
    "CELL",
    "GARBAGE",
    "SYMBOL",
    "Case",
    "Exercise",
    "Plan",
    "either",
    "failure",
    "garbage",
    "grid",
    "kind",
    "listing",
    "literal",
    "one_entry",
    "one_of",
    "row",
]


@dataclass(frozen=True)
class Case:
    """One planned call: the board (``"X.O......"``), its rank in report order (the
    earliest in the game first), and the function's other argument, if any."""

    board: str
    rank: int
    arg: Any = None
    invalid: bool = False


@dataclass
class Plan:
    """The calls per function, in the order they run."""

    cases: dict[str, list[Case]] = field(default_factory=dict)
    only: tuple[str, ...] = ()


def grid(board: str) -> str:
    """``"X.O.X...O"`` → ``"X.O/.X./..O"``."""
    return "/".join(board[r * 3 : r * 3 + 3] for r in range(3))


def literal(board: str) -> str:
    """The board as the exercise writes it: ``[[X, EMPTY, O], ...]``."""
    name = {"X": "X", "O": "O", ".": "EMPTY"}
    rows = ("[" + ", ".join(name[c] for c in board[r * 3 : r * 3 + 3]) + "]" for r in range(3))
    return "[" + ", ".join(rows) + "]"


def failure(outcome: list[Any]) -> str | None:
    """What went wrong with a call that gave no value, or None."""
    return describe(outcome)


Form = Callable[[Any], bool]


def kind(*types: type) -> Form:
    """A value of exactly one of ``types`` (JSON's: bool is not an int here)."""
    return lambda value: type(value) in types


def one_of(*choices: Any) -> Form:
    return lambda value: any(type(value) is type(c) and value == c for c in choices)


def listing(form: Form) -> Form:
    return lambda value: type(value) is list and all(form(v) for v in value)


def row(*forms: Form) -> Form:
    return lambda value: (
        type(value) is list
        and len(value) == len(forms)
        and all(f(v) for f, v in zip(forms, value, strict=True))
    )


def either(*forms: Form) -> Form:
    return lambda value: any(f(value) for f in forms)


#: A value that came back but is no answer at all: ``["g", its repr]``.
GARBAGE = row(one_of("g"), kind(str))
SYMBOL = one_of("X", "O", ".")
CELL: Form = lambda value: type(value) is int and 0 <= value < 9  # noqa: E731
BOARD: Form = lambda value: type(value) is str and len(value) == 9 and set(value) <= set("XO.")  # noqa: E731


def garbage(value: Any) -> str | None:
    if isinstance(value, list) and value[:1] == ["g"]:
        return str(value[1])
    return None


def one_entry(found: list[Path], none: str, several: str) -> tuple[list[Path], str]:
    """The files of a folder that could be an exercise's entry file, and what is wrong when
    there is not exactly one: ``none``, or ``several`` (``{n}`` the count, ``{listed}`` the
    names) and how to name the one to grade."""
    if not found:
        return found, none
    if len(found) > 1:
        listed = ", ".join(f.name for f in found)
        many = several.format(n=len(found), listed=listed)
        return found, f"{many}: name the one to grade (ttt check {found[0]})"
    return found, ""


class Exercise:
    """One shape, parent side."""

    key: ClassVar[str]
    #: Names the module must define ("a|b": either).
    names: ClassVar[tuple[str, ...]]
    #: The checks, in the order they run and are reported.
    functions: ClassVar[tuple[str, ...]]
    #: The names each check calls.
    needs: ClassVar[dict[str, tuple[str, ...]]]
    #: Checks without the per-call limit (only the total one), and those timed per call.
    unlimited: ClassVar[tuple[str, ...]] = ()
    timed: ClassVar[tuple[str, ...]] = ()
    #: "import" runs the module; "definitions" loads what it defines without its main code.
    load: ClassVar[str] = "definitions"
    #: The positional arguments each function is called with (for suggestions).
    arity: ClassVar[dict[str, int]] = {}
    #: The methods the check calls on each class (for detection and suggestions).
    members: ClassVar[dict[str, tuple[str, ...]]] = {}
    #: The attributes and methods of the student's objects that the check reads, each
    #: of which ``--name`` may map to the student's own.
    attributes: ClassVar[tuple[str, ...]] = ()
    #: The largest answer (bytes) of one call of these checks, where a call's default
    #: (:data:`tttlab.limits.CALL_ANSWER_BYTES`) is too small: an episode, say, with the
    #: entries of the table it changed.
    answer_limits: ClassVar[dict[str, int]] = {}
    #: The checks whose counterexample has no board of its own (a whole table).
    whole: ClassVar[tuple[str, ...]] = ()
    #: Names a submission may leave out (the course's ``play_game``): the checks that need
    #: one that is not defined are not run, and the report says so in a note.
    optional: ClassVar[tuple[str, ...]] = ()

    def notes(self, cases: dict[str, list[Case]], results: dict[str, list[list[Any]]]) -> list[str]:
        """Notes on how the student's code was taken, read from its answers (``results``:
        each check's outcomes, in the order of ``cases``): an adaptation the answers show,
        where it was not the text's way. None by default."""
        return []

    def skipped(self, missing: list[str]) -> list[str]:
        """The checks not run because an optional name among ``missing`` is not defined."""
        absent = {n for n in missing if n in self.optional}
        return [f for f in self.functions if absent & set(self.needs.get(f, ()))]

    def entry_files(self, folder: Path) -> tuple[list[Path], str]:
        """For an exercise that runs its module (``load == "import"``), the files of
        ``folder`` that could be it, and what is wrong when there is not exactly one."""
        return one_entry(sorted(folder.glob("*.py")), "no .py file in it", "{n} .py files")

    def board_shown(self, function: str, case: Case, outcome: list[Any]) -> str:
        """The board a counterexample draws (``"X.O......"``), or "" for none."""
        return "" if function in self.whole else case.board

    def nameable(self) -> tuple[str, ...]:
        """Every name ``--name`` may map: the top-level names, then the attributes."""
        top = tuple(n for entry in self.names for n in entry.split("|"))
        return top + tuple(a for a in self.attributes if a not in top)

    def plan(self, truth: ExerciseTruth, only: tuple[str, ...]) -> Plan:
        cases = self.cases(truth)
        return Plan({f: c for f, c in cases.items() if not only or f in only}, only)

    def cases(self, truth: ExerciseTruth) -> dict[str, list[Case]]:
        raise NotImplementedError

    def payload(self, function: str, case: Case) -> Any:
        """What the box's worker gets for a case."""
        return case.board if case.arg is None else [case.board, case.arg]

    #: The form of each check's value as the box's worker writes it (besides garbage).
    forms: ClassVar[dict[str, Form]]

    def well_formed(self, function: str, value: Any) -> bool:
        """Whether ``value`` has the form the worker writes for ``function``: anything
        else was written by someone else, and is never graded."""
        return bool(self.forms[function](value) or GARBAGE(value))

    def right(self, function: str, case: Case, outcome: list[Any], truth: ExerciseTruth) -> bool:
        raise NotImplementedError

    def expected(self, function: str, case: Case, truth: ExerciseTruth) -> str:
        raise NotImplementedError

    def got(self, function: str, outcome: list[Any], case: Case, truth: ExerciseTruth) -> str:
        """What the call gave, in words: what went wrong, a value that is no answer at all,
        or the value as :meth:`shown` writes it."""
        failed = failure(outcome)
        if failed:
            return failed
        junk = garbage(outcome[1])
        if junk is not None:
            return f"{visible(junk)} (not a valid {self.answer(function)})"
        return self.shown(function, outcome, case, truth)

    def answer(self, function: str) -> str:
        """What ``function`` returns, in a word or two (said of a value that is none)."""
        return "answer"

    def shown(self, function: str, outcome: list[Any], case: Case, truth: ExerciseTruth) -> str:
        """A value the call gave (``outcome[1]``), written as the student would write it."""
        raise NotImplementedError

    def call(self, function: str, case: Case) -> str:
        """The call, with ``board`` for the board."""
        raise NotImplementedError

    def repro(self, function: str, case: Case, expected: str, got: str) -> str:
        raise NotImplementedError

    def made(self, repro: str, making: list[str]) -> str:
        """``repro`` with the student's objects made as the box made them (``making``: a
        line to paste and X's and O's symbols, or empty: the text's own way)."""
        return repro

    def counted(self, function: str, case: Case) -> bool:
        """Whether a case counts in ``checked`` (invalid actions are counted apart)."""
        return not case.invalid

    def hints(self, sources: dict[str, str], report: CheckReport) -> list[str]:
        """One line for each known mistake found in the source (the seeds' own bugs) that
        explains a failure in ``report``."""
        return []
