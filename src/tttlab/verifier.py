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

In version 3 (version 2 and zones) a holding strategy may give, at a position where the other
side is to move, ``{"zones": [[cell, ...], ...]}``: each zone a list of that position's empty
cells leaving at least one out. For each zone the walk goes on to the position where the other
side has a mark on every empty cell outside it and the holder is to move, and of the other
side's replies it walks only those inside every zone. A reply outside a zone leads to a
position with fewer of the other side's marks and the same of the holder's, the holder to
move, so the holder holds there too: it plays as if the missing marks were there, and where
the other side takes one of those cells it plays any mark (fewer marks never help their
owner, an extra mark never hurts its owner). A position that no game reaches (the other side
ahead of its turns) is keyed with its side to move after a space (``"XX./.../... O"``)
wherever the counts of marks do not give it.

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
from pathlib import Path
from typing import Any

from tttlab.certrules import CertificateError, Rules
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
#: 1: strategies keyed by positions; 2: by the first image of each under the board's symmetries;
#: 3: as 2, with zones in holding strategies.
VERSIONS = (1, 2, 3)
#: The fields of a certificate; any other is refused (nothing in the file goes unchecked).
FIELDS = ("format", "version", "board", "rows", "cols", "k", "position", "claim", "strategies")


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


def _walk(rules: Rules, root: str, side: str, goal: str, moves: dict[str, Any], zones: bool) -> int:
    """Check one strategy of ``side`` from ``root`` (with ``zones``: a version-3
    certificate's); the number of positions visited."""
    other = "O" if side == "X" else "X"
    seen: set[tuple[str, str]] = set()
    stack = [(root, "X" if root.count("X") == root.count("O") else "O")]
    while stack:
        board, mover = stack.pop()
        board = rules.first_image(board)
        if (board, mover) in seen:
            continue
        seen.add((board, mover))
        won = rules.winner(board)
        if won == side:
            continue  # a win ends the walk for either goal (holding allows winning)
        if won == other:
            key = rules.key(board, mover)
            raise CertificateError(f"{key}: {other} completes a line against {side}'s strategy")
        if "." not in board:
            if goal == "win":
                raise CertificateError(f"{rules.key(board)}: a full board, not a win for {side}")
            continue
        if goal == "hold" and rules.held(board, side, mover == side):
            continue  # a leaf: the other side can no longer complete any line
        key = rules.key(board, mover)
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
            stack.append((board[:move] + side + board[move + 1 :], other))
            continue
        replies = rules.replies(board, empty, goal == "hold")
        if entry is not None:
            if not (zones and goal == "hold"):
                raise CertificateError(
                    f"{key}: an entry where {other} is to move (only zones, in version 3, "
                    "of a holding strategy)"
                )
            for zone in _zones(entry, empty, key):  # the position of each zone's proof
                filled = "".join(m if m != "." or c in zone else other for c, m in enumerate(board))
                stack.append((filled, side))
                replies = [c for c in replies if c in zone]
        stack.extend((board[:c] + other + board[c + 1 :], side) for c in replies)
    return len(seen)


def _zones(entry: Any, empty: list[int], key: str) -> list[frozenset[int]]:
    """A version-3 entry's zones: each a list of the position's empty cells, leaving out at
    least one (where the other side gets a mark in the zone's position)."""
    zones = entry.get("zones") if isinstance(entry, dict) and set(entry) == {"zones"} else None
    if not isinstance(zones, list) or not 1 <= len(zones) <= len(empty):
        raise CertificateError(f"{key}: {entry!r} is not an entry of zones"[:120])
    free = set(empty)
    out = []
    for zone in zones:
        cells = (
            frozenset(zone) if type(zone) is list and all(type(c) is int for c in zone) else None
        )
        if cells is None or len(cells) != len(zone) or not cells < free:
            raise CertificateError(
                f"{key}: not a zone of the empty cells leaving one out: {zone!r}"[:160]
            )
        out.append(cells)
    return out


def _check_pairing(rules: Rules, board: str, side: str, pairs: list[Any], key: str) -> None:
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
        raise CertificateError(f"not a {FORMAT} file of version 1, 2 or 3")
    rows, cols, k = (_integer(certificate, name) for name in ("rows", "cols", "k"))
    if not (rows >= 1 and cols >= 1 and rows * cols <= SEARCH_CELLS and 1 <= k <= max(rows, cols)):
        raise CertificateError(
            f"not a board of at most {SEARCH_CELLS} cells: {rows}x{cols} with k={k}"
        )
    name = f"{rows}x{cols}k{k}"
    if "board" in certificate and certificate["board"] != name:
        raise CertificateError(f"board {certificate['board']!r} is not {name}"[:120])
    rules = Rules(rows, cols, k, symmetric=version >= 2)
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
        side: _walk(rules, root, side, goal, strategies[side], version == 3)
        for side, goal in needs.items()
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
