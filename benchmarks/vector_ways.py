"""The ways of writing tttlab.vector's ``step`` that ``benchmarks/bench_vector_step.py`` times
against pgx: ``tttlab.vector.Env`` holds one of them (the best measured, the defaults here), and
:class:`WaysEnv` holds them all, chosen by five class attributes.

- ``_write``: the stone written by a scatter, by a one-hot ``where`` gated on the move's
  legality, or cell by cell ("cellwise": a cell takes the stone when it is the target, empty,
  and the game goes on, so the new board needs no per-game reduction or gather);
- ``_cells``: int8 or int32 cells;
- ``_win``: a win read by one gather of every line's cells, or line by line from static slices;
- ``_legal``: the occupied test by a one-hot reduction or by indexing the cell;
- ``_full``: a full board from the move count (the stones before the move, plus one where it is
  placed) or from the new board's cells.

Every way plays alike (tests/vector/test_ways.py checks each against ``Env``).
"""

from __future__ import annotations

import functools
import operator
from typing import Any, ClassVar

import jax
import jax.numpy as jnp

from tttlab.game import Geometry
from tttlab.vector import Env, State, make


class WaysEnv(Env):
    """``Env`` with its ``step`` written the way the class attributes say (the defaults are
    ``Env``'s own step). ``variant`` makes a subclass for one choice."""

    _write: str = "cellwise"
    _cells: Any = jnp.int8
    _win: str = "gather"
    _legal: str = "gather"
    _full: str = "count"
    #: Each choice's values, checked when an environment is made.
    WAYS: ClassVar[dict[str, tuple[Any, ...]]] = {
        "_write": ("scatter", "onehot", "cellwise"),
        "_cells": (jnp.int8, jnp.int32),
        "_win": ("gather", "slices"),
        "_legal": ("onehot", "gather"),
        "_full": ("count", "board"),
    }

    def __init__(self, geometry: Geometry) -> None:
        for name, ways in self.WAYS.items():
            if getattr(self, name) not in ways:
                raise ValueError(f"{name} must be one of {ways}, not {getattr(self, name)!r}")
        super().__init__(geometry)

    def init(self, key: jax.Array) -> State:
        state = super().init(key)
        return state.replace(board=state.board.astype(self._cells))

    def step(self, state: State, action: jax.Array, key: jax.Array | None = None) -> State:
        del key
        cells = self.geometry.cells
        action = jnp.asarray(action, jnp.int32)
        active = ~(state.terminated | state.truncated)
        target = jnp.arange(cells, dtype=jnp.int32) == action
        on_board = (action >= 0) & (action < cells)
        if self._legal == "onehot":
            legal = on_board & ~jnp.any(target & (state.board != 0))
        else:
            legal = on_board & (state.board[jnp.clip(action, 0, cells - 1)] == 0)
        place = active & legal
        piece = (state._player + 1).astype(self._cells)
        if self._write == "scatter":
            board = jnp.where(place, state.board.at[action].set(piece, mode="drop"), state.board)
        elif self._write == "onehot":
            board = jnp.where(place & target, piece, state.board)
        else:  # "cellwise"
            board = jnp.where(active & target & (state.board == 0), piece, state.board)
        mine = board == piece
        if self._win == "gather":
            won = place & jnp.any(jnp.all(mine[self._lines], axis=-1))
        else:
            lines = [functools.reduce(operator.and_, (mine[c] for c in ln)) for ln in self._lines]
            won = place & functools.reduce(operator.or_, lines)
        if self._full == "count":
            full = state._step_count + place.astype(jnp.int32) == cells
        else:  # "board"
            full = functools.reduce(operator.and_, (board[c] != 0 for c in range(cells)))
        return self._outcome(state, board, active, active & ~legal, won, full)


#: The cell dtypes by name, and each choice's values (``WaysEnv.WAYS``, without the underscore).
CELLS = {jnp.dtype(t).name: t for t in WaysEnv.WAYS["_cells"]}
CHOICES = {
    name.lstrip("_"): tuple(CELLS) if name == "_cells" else ways
    for name, ways in WaysEnv.WAYS.items()
}


def variant(board: str | Geometry, **choice: str) -> WaysEnv:
    """The environment for ``board`` with ``step`` written one way (``write=``, ``cells=``,
    ``win=``, ``legal=``, ``full=``, by name; a choice left out keeps ``Env``'s own)."""
    attrs: dict[str, Any] = {f"_{k}": CELLS[v] if k == "cells" else v for k, v in choice.items()}
    name = "_".join(f"{k}_{v}" for k, v in choice.items())
    env: WaysEnv = type(f"Env_{name}", (WaysEnv,), attrs)(make(board).geometry)
    return env
