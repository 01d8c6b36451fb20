"""``ttt verify``: defined in :mod:`tttlab._verify_cmd`, which imports nothing of the rest of
the command line, so that ``ttt verify`` runs without loading the solver."""

from __future__ import annotations

from tttlab._verify_cmd import verify_command

__all__ = ["verify_command"]
