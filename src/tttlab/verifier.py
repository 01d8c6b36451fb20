"""``ttt verify``: check a proof certificate against the rules alone.

Deliberately simple and separate: it imports nothing of tttlab but the base of its errors and
the declared limits (no game package, no solver), knows the rules of an m,n,k game from three
integers, and walks the certificate's strategies over every reply the rules allow.

A certificate (written by ``ttt solve --certificate FILE``; docs/reference/json.md) is JSON::

    {"format": "tttlab-certificate", "version": 1, "rows": 6, "cols": 5, "k": 4,
     "position": "...", "claim": "X wins" | "draw" | "O wins",
     "strategies": {"X": {"<position>": <cell>, ...}, "O": {...}}}

In version 2 the strategies are given up to the board's symmetries (eight on a square board,
four otherwise): the walk replaces each position it reaches by its *first image*, the image
under a symmetry that comes first as a string (``.`` < ``O`` < ``X``), and reads the entry
of that image; the rules are the same under every symmetry, so a strategy that works from
each class's first image works from every position of the class.

Positions are row-major strings of ``X``, ``O`` and ``.`` (rows separated by ``/``); a cell
is a 0-based row-major index. The claim is about ``position`` (the empty board if absent),
which must be one that a game reaches and that is not decided yet (no line, an empty cell).
The file is read strictly: at most :data:`~tttlab.limits.CERTIFICATE_BYTES` of UTF-8 JSON,
nested at most :data:`~tttlab.limits.CERTIFICATE_DEPTH` deep, no duplicate or unknown keys,
only integers (of at most :data:`~tttlab.limits.CERTIFICATE_DIGITS` digits, never a bool),
``board`` (if present) the name of ``rows``, ``cols`` and ``k``, and every board of up to
:data:`~tttlab.limits.SEARCH_CELLS` cells (every board the solver proves). Anything else is
a :class:`CertificateError` of one line. What each claim needs:

- ``"X wins"`` (or ``"O wins"``): the winner's strategy gives a legal move at every position
  where it is to move that is reached by the strategy against every legal reply of the other
  side, and every such game ends with the winner completing a line. A position where the
  winner can complete a line at once needs no entry (the verifier sees the move itself).
- ``"draw"``: each side's strategy *holds*: against every legal reply, the other side never
  completes a line. A position where every line already holds a mark of the holding side is
  a leaf (the other side can never complete a line there), and so is one whose entry is a
  *pairing* instead of a move: a list of disjoint pairs of empty cells such that every line
  without a mark of the holding side contains a whole pair (the holding side answers a move
  on one cell of a pair with the other, so the other side never owns a whole line).

The walk visits each position once. A cell is *dead* when every line through it holds an X
and an O (decided here, never read from the file). Against a holding strategy a reply on a
dead cell needs no answer: the holder plays any mark, and an extra mark never helps the other
side complete a line (the dead one is on no line the holder has not blocked). Against a
winning one the walk checks the lowest dead reply: after two such replies the positions
differ only on two dead cells, on no line anyone can complete: one game, two cells swapped.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from itertools import combinations
from operator import itemgetter
from pathlib import Path
from typing import Any

from tttlab.errors import TttlabError
from tttlab.limits import CERTIFICATE_BYTES, CERTIFICATE_DEPTH, CERTIFICATE_DIGITS, SEARCH_CELLS
from tttlab.strictjson import StrictJSONError, strict_loads

__all__ = [
    "CertificateError",
    "UnreadableCertificate",
    "Verdict",
    "loads",
    "verify",
    "verify_file",
]

FORMAT = "tttlab-certificate"
#: 1: strategies keyed by positions; 2: by the first image of each under the board's symmetries.
VERSIONS = (1, 2)
#: The fields of a certificate; any other is refused (nothing in the file goes unchecked).
FIELDS = ("format", "version", "board", "rows", "cols", "k", "position", "claim", "strategies")


class CertificateError(TttlabError):
    """A certificate that does not prove its claim: the first reason found, in one line."""


class UnreadableCertificate(CertificateError):
    """A path that cannot be read at all: missing, a folder, not allowed (``ttt verify``
    exits 2, as for any bad argument; a file that is read and refused exits 1)."""


@dataclass(frozen=True)
class Verdict:
    """What was checked: the board, the starting position (rows separated by ``/``), the
    claim about it, and the positions visited for each side's strategy."""

    board: str
    claim: str
    positions: dict[str, int]
    position: str

    @property
    def from_start(self) -> bool:
        """Whether the claim is about the empty board (the game itself)."""
        return set(self.position) <= {".", "/"}

    def describe(self) -> str:
        """What was verified, in words: the board, and the position unless it is empty."""
        if self.from_start:
            return f"{self.board} is {self.claim}"
        mover = "X" if self.position.count("X") == self.position.count("O") else "O"
        return f"{self.board} from {self.position} ({mover} to move) is {self.claim}"


class _Rules:
    """An m,n,k board: its lines as tuples of cells, and nothing else."""

    def __init__(self, rows: int, cols: int, k: int, symmetric: bool = False) -> None:
        self.rows, self.cols, self.k, self.cells = rows, cols, k, rows * cols
        images = set()  # the board's symmetries (version 2): new[i] = old[image[i]]
        flips = (False, True) if symmetric else (False,)
        for turn in flips if rows == cols else (False,):
            for flip_r in flips:
                for flip_c in flips:
                    image = []
                    for i in range(self.cells):
                        r, c = divmod(i, cols)
                        r, c = (c, r) if turn else (r, c)
                        r, c = (rows - 1 - r if flip_r else r), (cols - 1 - c if flip_c else c)
                        image.append(r * cols + c)
                    images.add(tuple(image))
        self.images = sorted(images)
        self._image_views = [itemgetter(*image) for image in self.images]
        lines = []
        for r in range(rows):
            for c in range(cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                    if 0 <= end_r < rows and 0 <= end_c < cols:
                        lines.append(tuple((r + dr * i) * cols + c + dc * i for i in range(k)))
        self.lines = lines
        # every line's marks in one call, read in C: the lines' cells with a "|" (read from
        # one place past the board) between lines, joined, then split at the "|"
        order: list[int] = []
        for line in lines:
            order += [self.cells, *line] if order else line
        self._view = itemgetter(*order)
        self.line_sets = [frozenset(line) for line in lines]
        self.lines_with: dict[frozenset[int], list[int]] = {}  # a pair's lines (indices)
        for i, line in enumerate(lines):
            for pair in combinations(line, 2):
                self.lines_with.setdefault(frozenset(pair), []).append(i)
        # a line of k marks; one mark short, with the one empty cell anywhere
        self._lines_of = {m: f"|{m * k}|" for m in "XO"}
        self._short_of = {m: [f"|{m * i}.{m * (k - 1 - i)}|" for i in range(k)] for m in "XO"}
        self._last: tuple[str, str, list[str]] = ("", "", [])

    def _read(self, board: str) -> tuple[str, list[str]]:
        """Every line's marks: as one string, each line between "|"s, and as a list (the
        last board's kept: the walk asks up to four times)."""
        if self._last[0] != board:
            joined = "".join(self._view(board + "|"))
            self._last = (board, f"|{joined}|", joined.split("|"))
        return self._last[1], self._last[2]

    def replies(self, board: str, empty: list[int], hold: bool) -> list[int]:
        """The replies the walk checks: each empty cell not dead (a dead one: every line
        through it holds an X and an O), and against a win the lowest dead one."""
        texts = zip(self.line_sets, self._read(board)[1], strict=True)
        on_open = frozenset().union(*(c for c, t in texts if "X" not in t or "O" not in t))
        live = [c for c in empty if c in on_open]
        if len(live) < len(empty) and not hold:
            live.append(next(c for c in empty if c not in live))
        return live

    def parse(self, text: str) -> str:
        board = text.replace("/", "")
        if (
            len(board) != self.cells
            or set(board) - {"X", "O", "."}
            or text not in (board, self.key(board))
        ):
            raise CertificateError(f"not a position of this board: {text[:80]!r}")
        x, o = board.count("X"), board.count("O")
        if x - o not in (0, 1):
            raise CertificateError(f"not a position of a game (X {x}, O {o}): {text!r}")
        return board

    def start(self, text: str) -> str:
        """The starting position: one that a game reaches and that is not decided yet."""
        board = self.parse(text)
        key = self.key(board)
        x = board.count("X")
        lines = {
            mark: [set(line) for line in self.lines if all(board[c] == mark for c in line)]
            for mark in "XO"
        }
        if lines["X"] and lines["O"]:
            raise CertificateError(f"no game reaches {key}: both X and O have a line")
        for mark, moved_last in (("X", x != board.count("O")), ("O", x == board.count("O"))):
            if lines[mark] and not moved_last:
                raise CertificateError(
                    f"no game reaches {key}: {mark} has a line, and the other side moved after"
                )
            if lines[mark] and not set.intersection(*lines[mark]):
                raise CertificateError(f"no game reaches {key}: {mark}'s lines share no cell")
            if lines[mark]:
                raise CertificateError(f"the game is already decided at {key}: {mark} has a line")
        if "." not in board:
            raise CertificateError(f"the game is already decided at {key}: the board is full")
        return board

    def winner(self, board: str) -> str | None:
        joined = self._read(board)[0]
        return next((m for m in "XO" if self._lines_of[m] in joined), None)

    def can_complete_now(self, board: str, mark: str) -> bool:
        joined = self._read(board)[0]
        return any(short in joined for short in self._short_of[mark])

    def held(self, board: str, holder: str, holder_moves: bool) -> bool:
        """Erdős–Selfridge: the lines free of ``holder``'s marks, each weighing 2^-(its empty
        cells), weigh under 1 with the holder to move (1/2 with the other side to move)."""
        weight, most = 0, 1 << (self.k - (not holder_moves))
        for line in self._read(board)[1]:
            weight += 0 if holder in line else 1 << (self.k - line.count("."))
            if weight >= most:
                return False
        return True

    def first_image(self, board: str) -> str:
        """The board itself, or in a version-2 certificate the image under the symmetries
        that comes first as a string (``.`` < ``O`` < ``X``): the key of its class."""
        if len(self.images) == 1:
            return board
        return min("".join(view(board)) for view in self._image_views)

    def key(self, board: str) -> str:
        return "/".join(board[r * self.cols : (r + 1) * self.cols] for r in range(self.rows))


def _walk(rules: _Rules, root: str, side: str, goal: str, moves: dict[str, Any]) -> int:
    """Check one strategy of ``side`` from ``root``; the number of positions visited."""
    other = "O" if side == "X" else "X"
    seen: set[str] = set()
    stack = [root]
    while stack:
        board = rules.first_image(stack.pop())
        if board in seen:
            continue
        seen.add(board)
        won = rules.winner(board)
        if won == side:
            continue  # a win ends the walk for either goal (holding allows winning)
        if won == other:
            key = rules.key(board)
            raise CertificateError(f"{key}: {other} completes a line against {side}'s strategy")
        if "." not in board:
            if goal == "win":
                raise CertificateError(f"{rules.key(board)}: a full board, not a win for {side}")
            continue
        mover = "X" if board.count("X") == board.count("O") else "O"
        if goal == "hold" and rules.held(board, side, mover == side):
            continue  # a leaf: the other side can no longer complete any line
        key = rules.key(board)
        empty = [c for c, mark in enumerate(board) if mark == "."]
        entry = moves.get(key)
        if goal == "hold" and isinstance(entry, list):
            _check_pairing(rules, board, side, entry, key)
            continue  # a leaf: the pairing holds from here on
        if mover == side:
            if rules.can_complete_now(board, side):
                continue  # a leaf: the winning move is on the board for anyone to see
            move = entry
            if move is None:
                raise CertificateError(f"{key}: {side}'s strategy has no move here")
            if not isinstance(move, int) or isinstance(move, bool) or move not in empty:
                raise CertificateError(f"{key}: {side}'s move {move!r} is not a legal move")
            stack.append(board[:move] + side + board[move + 1 :])
        else:
            replies = rules.replies(board, empty, goal == "hold")
            stack.extend(board[:c] + other + board[c + 1 :] for c in replies)
    return len(seen)


def _check_pairing(rules: _Rules, board: str, side: str, pairs: list[Any], key: str) -> None:
    """A pairing leaf: disjoint pairs of empty cells such that every line without a mark of
    ``side`` contains both cells of a pair. From here ``side`` holds by answering a move on
    one cell of a pair with the other: the other side can never own a whole pair, so never
    a whole line."""
    used: set[int] = set()
    for pair in pairs:
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and all(isinstance(c, int) and not isinstance(c, bool) for c in pair)
        ):
            raise CertificateError(f"{key}: {pair!r} is not a pair of cells")
        for cell in pair:
            if not 0 <= cell < rules.cells or board[cell] != "." or cell in used:
                raise CertificateError(f"{key}: the pairing's cell {cell!r} is not free")
            used.add(cell)
    covered = set().union(*(rules.lines_with.get(frozenset(pair), ()) for pair in pairs))
    for i, text in enumerate(rules._read(board)[1]):
        if side not in text and i not in covered:
            raise CertificateError(
                f"{key}: the pairing leaves the line {list(rules.lines[i])} uncovered"
            )


def _integer(certificate: dict[str, Any], name: str) -> int:
    value = certificate.get(name)
    if type(value) is not int:  # not a bool, a float or a string of digits
        raise CertificateError(f"{name} must be an integer, not {value!r}"[:120])
    return value


def verify(certificate: dict[str, Any]) -> Verdict:
    """Check a certificate (parsed JSON); raises :class:`CertificateError` if it fails."""
    if not isinstance(certificate, dict) or certificate.get("format") != FORMAT:
        raise CertificateError(f"this is not a {FORMAT} file")
    unknown = sorted(set(certificate) - set(FIELDS))
    if unknown:
        raise CertificateError(f"unknown field {unknown[0]!r}"[:120])
    version = _integer(certificate, "version")
    if version not in VERSIONS:
        raise CertificateError(f"not a {FORMAT} file of version 1 or 2")
    rows, cols, k = (_integer(certificate, name) for name in ("rows", "cols", "k"))
    if not (rows >= 1 and cols >= 1 and rows * cols <= SEARCH_CELLS and 1 <= k <= max(rows, cols)):
        raise CertificateError(
            f"not a board of at most {SEARCH_CELLS} cells: {rows}x{cols} with k={k}"
        )
    name = f"{rows}x{cols}k{k}"
    if "board" in certificate and certificate["board"] != name:
        raise CertificateError(f"board {certificate['board']!r} is not {name}"[:120])
    rules = _Rules(rows, cols, k, symmetric=version == 2)
    position = certificate.get("position", "." * rules.cells)
    if not isinstance(position, str):
        raise CertificateError(f"the position must be a string, not {position!r}"[:120])
    root = rules.start(position)
    strategies = certificate.get("strategies")
    if not isinstance(strategies, dict):
        raise CertificateError("strategies must be an object")
    claim = certificate.get("claim")
    if claim in ("X wins", "O wins"):
        needs = {claim[0]: "win"}
    elif claim == "draw":
        needs = {"X": "hold", "O": "hold"}
    else:
        raise CertificateError(f"the claim must be 'X wins', 'O wins' or 'draw', not {claim!r}")
    if set(strategies) - {"X", "O"}:
        raise CertificateError("strategies may hold only X's and O's")
    for side in needs:
        if not isinstance(strategies.get(side), dict):
            raise CertificateError(f"the claim needs {side}'s strategy")
    visited = {
        side: _walk(rules, root, side, goal, strategies[side]) for side, goal in needs.items()
    }
    return Verdict(name, str(claim), visited, rules.key(root))


def loads(raw: bytes) -> Any:
    """The JSON of a certificate file, read strictly (see the module's doc); a file that is
    not one raises :class:`CertificateError` in one line, whatever its bytes."""
    try:
        return strict_loads(raw, CERTIFICATE_BYTES, CERTIFICATE_DEPTH, CERTIFICATE_DIGITS)
    except StrictJSONError as error:
        raise CertificateError(str(error)) from None


def verify_file(path: str | Path) -> Verdict:
    """Check a certificate file; raises :class:`CertificateError` (also for a file that is
    not a certificate), :class:`UnreadableCertificate` for a path that cannot be read."""
    try:
        with open(path, "rb") as file:
            if os.fstat(file.fileno()).st_size > CERTIFICATE_BYTES:
                raise CertificateError(f"the file has over {CERTIFICATE_BYTES:,} bytes")
            raw = file.read(CERTIFICATE_BYTES + 1)
    except OSError as error:
        raise UnreadableCertificate(f"cannot read {path}: {error.strerror or error}") from None
    return verify(loads(raw))


def main(argv: list[str]) -> int:
    """``python -m tttlab.verifier FILE``: 0 verified, 1 rejected, 2 no file to read."""
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: python -m tttlab.verifier FILE", file=sys.stderr)
        return 2
    try:
        verdict = verify_file(argv[0])
    except UnreadableCertificate as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except CertificateError as error:
        print(f"rejected: {error}", file=sys.stderr)
        return 1
    print(f"verified: {verdict.describe()} ({verdict.positions})")
    return 0


if __name__ == "__main__":  # python -m tttlab.verifier FILE: the checker on its own
    sys.exit(main(sys.argv[1:]))
