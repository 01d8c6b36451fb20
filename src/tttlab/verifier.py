"""``ttt verify``: check a proof certificate against the rules alone.

Deliberately simple and separate: this module imports nothing from the rest of tttlab but
the base of its errors (not the game package, not the solver, its search, heuristics or
tables). It knows the rules of
an m,n,k game from three integers, and it walks the certificate's strategies over every
reply the rules allow.

A certificate (written by ``ttt solve --certificate FILE``; docs/reference/json.md) is JSON::

    {"format": "tttlab-certificate", "version": 1, "rows": 6, "cols": 5, "k": 4,
     "position": "...", "claim": "X wins" | "draw" | "O wins",
     "strategies": {"X": {"<position>": <cell>, ...}, "O": {...}}}

Positions are row-major strings of ``X``, ``O`` and ``.`` (rows separated by ``/``); a cell
is a 0-based row-major index. What each claim needs:

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

The walk visits each position once (a position reached by two move orders is checked once).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tttlab.errors import TttlabError

__all__ = ["CertificateError", "UnreadableCertificate", "Verdict", "verify", "verify_file"]

FORMAT = "tttlab-certificate"
VERSION = 1


class CertificateError(TttlabError):
    """A certificate that does not prove its claim: the first reason found, in one line."""


class UnreadableCertificate(CertificateError):
    """A file that is not a certificate at all (``ttt verify`` exits 2, not 1)."""


@dataclass(frozen=True)
class Verdict:
    """What was checked: the claim, and the positions visited for each side's strategy."""

    board: str
    claim: str
    positions: dict[str, int]


class _Rules:
    """An m,n,k board: its lines as tuples of cells, and nothing else."""

    def __init__(self, rows: int, cols: int, k: int) -> None:
        self.rows, self.cols, self.k, self.cells = rows, cols, k, rows * cols
        lines = []
        for r in range(rows):
            for c in range(cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                    if 0 <= end_r < rows and 0 <= end_c < cols:
                        lines.append(tuple((r + dr * i) * cols + c + dc * i for i in range(k)))
        self.lines = lines

    def parse(self, text: str) -> str:
        board = text.replace("/", "")
        if len(board) != self.cells or set(board) - {"X", "O", "."}:
            raise CertificateError(f"not a position of this board: {text!r}")
        x, o = board.count("X"), board.count("O")
        if x - o not in (0, 1):
            raise CertificateError(f"not a position of a game (X {x}, O {o}): {text!r}")
        return board

    def winner(self, board: str) -> str | None:
        for line in self.lines:
            mark = board[line[0]]
            if mark != "." and all(board[c] == mark for c in line):
                return mark
        return None

    def can_complete_now(self, board: str, mark: str) -> bool:
        return any(
            sum(board[c] == mark for c in line) == self.k - 1
            and sum(board[c] == "." for c in line) == 1
            for line in self.lines
        )

    def can_never_complete(self, board: str, mark: str) -> bool:
        """Whether every line already holds a mark of the other side."""
        other = "O" if mark == "X" else "X"
        return all(any(board[c] == other for c in line) for line in self.lines)

    def key(self, board: str) -> str:
        return "/".join(board[r * self.cols : (r + 1) * self.cols] for r in range(self.rows))


def _walk(rules: _Rules, root: str, side: str, goal: str, moves: dict[str, Any]) -> int:
    """Check one strategy of ``side`` from ``root``; the number of positions visited."""
    other = "O" if side == "X" else "X"
    seen: set[str] = set()
    stack = [root]
    while stack:
        board = stack.pop()
        if board in seen:
            continue
        seen.add(board)
        won = rules.winner(board)
        key = rules.key(board)
        if won == side:
            continue  # a win ends the walk for either goal (holding allows winning)
        if won == other:
            raise CertificateError(f"{key}: {other} completes a line against {side}'s strategy")
        empty = [c for c, mark in enumerate(board) if mark == "."]
        if not empty:
            if goal == "win":
                raise CertificateError(f"{key}: a full board, not a win for {side}")
            continue
        mover = "X" if board.count("X") == board.count("O") else "O"
        if goal == "hold" and rules.can_never_complete(board, other):
            continue  # a leaf: the other side can no longer complete any line
        entry = moves.get(key)
        if goal == "hold" and isinstance(entry, list):
            _check_pairing(rules, board, side, entry, key)
            continue  # a leaf: the pairing holds from here on
        if mover == side:
            if goal == "win" and rules.can_complete_now(board, side):
                continue  # a leaf: the winning move is on the board for anyone to see
            move = entry
            if move is None:
                raise CertificateError(f"{key}: {side}'s strategy has no move here")
            if not isinstance(move, int) or isinstance(move, bool) or move not in empty:
                raise CertificateError(f"{key}: {side}'s move {move!r} is not a legal move")
            stack.append(board[:move] + side + board[move + 1 :])
        else:
            stack.extend(board[:c] + other + board[c + 1 :] for c in empty)
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
    covers = [set(pair) for pair in pairs]
    for line in rules.lines:
        if any(board[c] == side for c in line):
            continue
        if not any(pair <= set(line) for pair in covers):
            raise CertificateError(f"{key}: the pairing leaves the line {list(line)} uncovered")


def verify(certificate: dict[str, Any]) -> Verdict:
    """Check a certificate (parsed JSON); raises :class:`CertificateError` if it fails."""
    if certificate.get("format") != FORMAT or certificate.get("version") != VERSION:
        raise UnreadableCertificate(f"not a {FORMAT} version {VERSION} file")
    try:
        rows, cols, k = (int(certificate[name]) for name in ("rows", "cols", "k"))
    except (KeyError, TypeError, ValueError):
        raise CertificateError("rows, cols and k must be integers") from None
    if not (1 <= rows <= 8 and 1 <= cols <= 8 and 1 <= k <= max(rows, cols)):
        raise CertificateError(f"not a board: {rows}x{cols} with k={k}")
    rules = _Rules(rows, cols, k)
    root = rules.parse(str(certificate.get("position", "." * rules.cells)))
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
    for side in needs:
        if not isinstance(strategies.get(side), dict):
            raise CertificateError(f"the claim needs {side}'s strategy")
    visited = {
        side: _walk(rules, root, side, goal, strategies[side]) for side, goal in needs.items()
    }
    return Verdict(f"{rows}x{cols}k{k}", str(claim), visited)


def verify_file(path: str | Path) -> Verdict:
    """Check a certificate file; raises :class:`CertificateError` (also for a file that is
    not a certificate)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UnreadableCertificate(f"cannot read {path}: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UnreadableCertificate(f"{path} is not a {FORMAT} file")
    return verify(data)


if __name__ == "__main__":  # python -m tttlab.verifier FILE: the checker on its own
    try:
        verdict = verify_file(sys.argv[1])
    except CertificateError as error:
        print(f"rejected: {error}", file=sys.stderr)
        sys.exit(1)
    print(f"verified: {verdict.board} is {verdict.claim} ({verdict.positions})")
