"""The course exercise's function API over a list-of-lists board, on top of tttlab's rules.

Boards are lists of rows holding ``"X"``, ``"O"`` or ``None``; actions are ``(row, col)``
tuples, 0-based. Every function validates the board (shape, symbols, reachability) through
:class:`tttlab.game.Position`, so impossible boards raise a clear ``ValueError``.

>>> board = initial_state()
>>> player(board)
'X'
>>> board = result(board, (1, 1))
>>> player(board), (1, 1) in actions(board)
('O', False)
>>> board = [["X", "X", None], [None, "O", None], [None, None, None]]
>>> minimax(board)  # O must block the top row
(0, 2)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tttlab.game import Geometry, IllegalMoveError, Position, PositionError

__all__ = [
    "EMPTY",
    "Board",
    "O",
    "X",
    "actions",
    "board_of",
    "initial_state",
    "minimax",
    "player",
    "result",
    "terminal",
    "utility",
    "winner",
]

X = "X"
O = "O"
EMPTY = None

Board = list[list[str | None]]
_CODE = {None: 0, X: 1, O: 2}
_SYMBOL = {0: EMPTY, 1: X, 2: O}


def initial_state() -> Board:
    """An empty 3×3 board.

    Examples:
        >>> initial_state()
        [[None, None, None], [None, None, None], [None, None, None]]
    """
    return [[EMPTY] * 3 for _ in range(3)]


def _position(board: Sequence[Sequence[str | None]]) -> Position:
    if not isinstance(board, Sequence) or not board:
        raise PositionError("a board is a non-empty list of rows")
    if any(not isinstance(row, Sequence) or isinstance(row, str) for row in board):
        raise PositionError("each row of a board must be a list of cells")
    widths = {len(row) for row in board}
    if len(widths) != 1:
        raise PositionError("all rows of a board must have the same length")
    cells = []
    for row in board:
        for cell in row:
            if cell not in _CODE:
                raise PositionError(f"cells must be 'X', 'O' or None, got {cell!r}")
            cells.append(_CODE[cell])
    rows, cols = len(board), widths.pop()
    return Position.from_cells(cells, Geometry(rows, cols, min(rows, cols)))


def board_of(position: Position) -> Board:
    """The exercise's list-of-lists board for a position (any geometry).

    Examples:
        >>> board_of(Position.from_string("X../.O./..."))
        [['X', None, None], [None, 'O', None], [None, None, None]]
    """
    cols = position.geometry.cols
    return [
        [_SYMBOL[c] for c in position.cells[r * cols : (r + 1) * cols]]
        for r in range(position.geometry.rows)
    ]


def player(board: Board) -> str:
    """Whose turn it is: X moves first, then the sides alternate.

    Examples:
        >>> player([["X", None, None], [None, None, None], [None, None, None]])
        'O'
    """
    return _position(board).to_move.name


def actions(board: Board) -> set[tuple[int, int]]:
    """Every ``(row, col)`` that can be played; empty once the game is over.

    Examples:
        >>> sorted(actions([["X", "O", "X"], ["O", "X", "O"], [None, None, None]]))
        [(2, 0), (2, 1), (2, 2)]
    """
    position = _position(board)
    return {position.geometry.row_col(m) for m in position.legal_moves}


def result(board: Board, action: tuple[int, int]) -> Board:
    """The board after the player to move plays ``action``; the input is not changed.

    Raises:
        IllegalMoveError: the action is not a (row, col) pair on the board, the cell is
            taken, or the game is over.

    Examples:
        >>> result(initial_state(), (0, 2))
        [[None, None, 'X'], [None, None, None], [None, None, None]]
        >>> result(initial_state(), (-1, 0))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tttlab.game.position.IllegalMoveError: illegal move (-1, 0): (row, col) must lie ...
    """
    position = _position(board)
    g = position.geometry
    if (
        not isinstance(action, tuple)
        or len(action) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in action)
    ):
        raise IllegalMoveError(action, "an action is a (row, col) pair of integers")
    row, col = action
    if not (0 <= row < g.rows and 0 <= col < g.cols):
        raise IllegalMoveError(action, f"(row, col) must lie within {g.rows}x{g.cols}")
    return board_of(position.apply(g.cell(row, col)))


def winner(board: Board) -> str | None:
    """``"X"`` or ``"O"`` if that side has a line, else None.

    Examples:
        >>> winner([["X", "X", "X"], ["O", "O", None], [None, None, None]]), winner(initial_state())
        ('X', None)
    """
    won = _position(board).winner
    return None if won is None else won.name


def terminal(board: Board) -> bool:
    """True once someone has won or the board is full.

    Examples:
        >>> won = [["X", "X", "X"], ["O", "O", None], [None, None, None]]
        >>> terminal(won), terminal(initial_state())
        (True, False)
    """
    return _position(board).is_terminal


def utility(board: Board) -> int:
    """1 if X has won, −1 if O has won, 0 otherwise.

    Examples:
        >>> utility([["X", "X", "X"], ["O", "O", None], [None, None, None]])
        1
    """
    return _position(board).utility


def minimax(board: Board) -> tuple[int, int] | None:
    """The optimal action for the player to move (None on a finished board).

    Plain minimax with alpha-beta pruning, as the exercise describes: X maximises the
    utility, O minimises it, and the first best action in row-major order is returned.

    Examples:
        >>> minimax([["X", "X", None], ["O", "O", None], [None, None, None]])  # X wins now
        (0, 2)
        >>> minimax(initial_state())   # every first move draws: the first in row-major order
        (0, 0)
    """
    position = _position(board)
    if position.is_terminal:
        return None
    maximising = position.to_move.name == X
    best_move = -1
    alpha, beta = -math.inf, math.inf
    value = -math.inf if maximising else math.inf
    for move in position.legal_moves:
        score = _value(position.apply(move), alpha, beta)
        if (score > value) if maximising else (score < value):
            value, best_move = score, move
        alpha, beta = (max(alpha, value), beta) if maximising else (alpha, min(beta, value))
    return position.geometry.row_col(best_move)


def _value(position: Position, alpha: float, beta: float) -> float:
    """The minimax value of ``position`` with alpha-beta pruning: the exercise's Max-Value
    (X to move) and Min-Value (O to move) in one."""
    if position.is_terminal:
        return position.utility
    maximising = position.to_move.name == X
    value = -math.inf if maximising else math.inf
    for move in position.legal_moves:
        child = _value(position.apply(move), alpha, beta)
        if maximising:
            value = max(value, child)
            alpha = max(alpha, value)
        else:
            value = min(value, child)
            beta = min(beta, value)
        if alpha >= beta:
            break
    return value
