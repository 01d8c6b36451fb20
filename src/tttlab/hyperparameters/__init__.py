"""Every learner's hyperparameters, declared once: name, type, range, default, help and the
learners each applies to.

Everything else is derived from this table: ``ttt train``'s options (``tttlab.cli.options``),
the keyword checks of :func:`tttlab.train`, ``GET /api/algorithms`` and the web lab's form,
``ttt sweep --set``, and the defaults of the learners' configurations. One option, and how it
checks, parses and shows a value, is :mod:`~tttlab.hyperparameters.option`; the table and
what is derived from it per learner, :mod:`~tttlab.hyperparameters.declaration`.

>>> BY_NAME["epsilon"].default("q")
0.1
>>> check_options("q", {"alpha": 0.3})
{'alpha': 0.3}
>>> check_options("q", {"draw_reward": 0.3})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tttlab.errors.ConfigError: --draw-reward does not apply to q (it takes --epsilon, ...)
"""

from __future__ import annotations

from tttlab.hyperparameters import declaration, option
from tttlab.hyperparameters.declaration import *  # noqa: F403  (its __all__)
from tttlab.hyperparameters.option import *  # noqa: F403  (its __all__)

__all__: list[str] = []
__all__ += option.__all__
__all__ += declaration.__all__
