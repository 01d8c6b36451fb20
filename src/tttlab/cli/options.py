"""Click options generated from the one declaration of the hyperparameters
(:mod:`tttlab.hyperparameters`): ``ttt train`` takes every one of them, and refuses those
that do not apply to the learner asked for."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from tttlab.cli.common import FiniteFloat
from tttlab.errors import TttlabError
from tttlab.hyperparameters import HYPERPARAMETERS, Hyperparameter

__all__ = ["hyperparameter_options"]

F = TypeVar("F", bound=Callable[..., Any])


class Widths(click.ParamType):  # type: ignore[type-arg]
    """Hidden layer widths such as ``128,128``, checked by the declaration."""

    name = "WIDTHS"

    def __init__(self, entry: Hyperparameter) -> None:
        self.entry = entry

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return self.entry.check(value if isinstance(value, tuple) else str(value))
        except TttlabError as error:
            self.fail(str(error), param, ctx)


def _type(entry: Hyperparameter) -> Any:
    if entry.kind == "number":
        return FiniteFloat(entry.low, entry.high, min_open=entry.low_open)
    if entry.kind == "integer":
        low = None if entry.low is None else int(entry.low)
        high = None if entry.high is None else int(entry.high)
        return click.IntRange(low, high)
    if entry.kind == "choice":
        return click.Choice(entry.choices)
    return Widths(entry)


def _help(entry: Hyperparameter) -> str:
    shown = [f"{learner} {entry.default_text(learner)}" for learner in entry.learners]
    return f"{entry.help} Default: {'; '.join(shown)}."


def hyperparameter_options(func: F) -> F:
    """Add an option for every hyperparameter; each arrives as a keyword, ``None`` when not
    given."""
    for entry in reversed(HYPERPARAMETERS):
        if entry.kind == "switch":
            flag = entry.option + "/--no-" + entry.option[2:]
            func = click.option(flag, entry.name, default=None, help=_help(entry))(func)
        else:
            func = click.option(
                entry.option, entry.name, type=_type(entry), default=None, help=_help(entry)
            )(func)
    return func
