"""One base error for every refusal of bad input, so that one ``except`` catches them all.

>>> import tttlab
>>> try:
...     tttlab.solve("0x3")
... except tttlab.TttlabError as error:
...     print(type(error).__name__, "-", error)
GeometryError - rows must be at least 1, got 0

Every error class of tttlab's own subclasses :class:`TttlabError`, which is a
``ValueError`` (as python-chess's ``IllegalMoveError`` is), and its message is one line that
says what was wrong. An argument of the wrong type raises :class:`TttlabTypeError`, which is
both a ``TttlabError`` and a ``TypeError``.
"""

from __future__ import annotations

__all__ = [
    "AgentError",
    "ConfigError",
    "NotDeterministic",
    "TrainingDiverged",
    "TttlabError",
    "TttlabTypeError",
]


class TttlabError(ValueError):
    """Bad input to tttlab: a board, position, move, agent, file or option that cannot be
    used. The message is one line.

    Examples:
        >>> import tttlab
        >>> try:
        ...     tttlab.position("XXX/OOO/...")
        ... except tttlab.TttlabError as error:
        ...     print(type(error).__name__, isinstance(error, ValueError))
        PositionError True
    """


class TttlabTypeError(TttlabError, TypeError):
    """An argument of the wrong type (a number where a name is wanted, ...).

    Examples:
        >>> import tttlab
        >>> tttlab.solve(board=3)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tttlab.errors.TttlabTypeError: ...
    """


class ConfigError(TttlabError):
    """Hyperparameters or training options that cannot be used."""


class AgentError(TttlabError):
    """An agent name, agent file or agent that cannot be used for what was asked.

    Examples:
        >>> import tttlab
        >>> tttlab.load("perfekt")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tttlab.errors.AgentError: unknown agent 'perfekt': ...
    """


class NotDeterministic(AgentError):
    """An agent answered one position differently when asked twice: no proof, and no
    unsampled exact verdict, covers every move it may play."""


class TrainingDiverged(TttlabError):
    """A training run whose network stopped being finite: it stops there, and what it
    keeps (the trainer's state, a checkpoint) is the last finite state."""
