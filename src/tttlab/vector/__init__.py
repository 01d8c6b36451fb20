"""Batched environments in JAX (the ``neural`` extra): pgx's ``Env`` interface on every
m,n,k board. ``tttlab.vector.make("4x4k4")``."""

from tttlab.vector.env import Env, State, make

__all__ = ["Env", "State", "make"]
