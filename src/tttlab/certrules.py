"""The rules of an m,n,k game as ``ttt verify`` reads them (:mod:`tttlab.verifier`): the lines
of a board of ``rows`` × ``cols`` with ``k`` in a row, its symmetries, and what a position
string shows at a glance. Like the verifier, it imports nothing of tttlab's game or solver.
"""

from __future__ import annotations

from itertools import combinations
from operator import itemgetter

from tttlab.errors import TttlabError

__all__ = ["CertificateError", "Rules"]


class CertificateError(TttlabError):
    """A certificate that does not prove its claim: the first reason found, in one line."""


class Rules:
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

    def key(self, board: str, mover: str | None = None) -> str:
        """The position as a certificate keys it: its rows joined by "/", then, where the side
        to move is not the one the counts give (X as many marks as O: X; one more: O), a
        space and that side (a position of a zone's proof, which no game reaches)."""
        text = "/".join(board[r * self.cols : (r + 1) * self.cols] for r in range(self.rows))
        ahead = board.count("X") - board.count("O")
        if mover is None or (ahead, mover) in ((0, "X"), (1, "O")):
            return text
        return f"{text} {mover}"
