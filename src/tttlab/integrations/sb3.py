"""Judge a Stable-Baselines3 (or sb3-contrib) model exactly while it trains.

>>> from tttlab.integrations.sb3 import ExactJudge
>>> judge = ExactJudge(board="3x3k3", seat="X")

``exact_eval_callback(every=2048)`` gives a ``BaseCallback`` for ``model.learn(...,
callback=...)``: every ``every`` steps it asks the model for every position (``predict``
with the action mask, deterministic), judges that policy exactly with
:func:`tttlab.evaluate`, and records ``tttlab/<seat>/optimal_share``, ``worst_case`` and
``score_vs_random`` in the model's logger, where Stable-Baselines3 writes its own metrics
(stdout, TensorBoard, CSV). ``callback.judge.records`` keeps every point.

This module imports Stable-Baselines3 only when the callback is made, so it can be read (and
:class:`ExactJudge` used) without it; the callback needs ``pip install 'tttlab[sb3]'``
(Stable-Baselines3 and sb3-contrib; they need PyTorch).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tttlab.api import evaluate
from tttlab.errors import TttlabError

__all__ = ["ExactJudge", "exact_eval_callback"]


@dataclass
class ExactJudge:
    """Judges a model with ``predict(observation, action_masks=...)`` exactly; keeps each
    point as ``{"steps": N, "X": {...}, "O": {...}}`` (``ttt eval --json``'s fields), with
    what ``extra()`` returns added (the games played so far, say).

    Examples:
        Any object with SB3's ``predict`` signature is judged on every position:

        >>> import numpy as np
        >>> class FirstFree:  # a stand-in for a trained model
        ...     def predict(self, observation, action_masks=None, deterministic=True):
        ...         return np.argmax(action_masks, axis=-1), None
        >>> judge = ExactJudge(seat="X")
        >>> point = judge(FirstFree(), steps=4096)
        >>> point["steps"], point["X"]["worst_case"], sorted(point)
        (4096, -1, ['X', 'steps'])
    """

    board: str = "3x3k3"
    seat: str | None = None
    extra: Callable[[], dict[str, Any]] | None = None
    records: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, model: Any, steps: int) -> dict[str, Any]:
        evaluation = evaluate(model, board=self.board, seat=self.seat, convention="sb3")
        point = {"steps": int(steps), **evaluation.to_dict()}
        if self.extra is not None:
            point.update(self.extra())
        self.records.append(point)
        return point


def exact_eval_callback(
    every: int,
    board: str = "3x3k3",
    seat: str | None = None,
    verbose: int = 0,
    extra: Callable[[], dict[str, Any]] | None = None,
) -> Any:
    """A Stable-Baselines3 callback that judges the model exactly every ``every`` steps
    (and once at the end of training); ``callback.judge`` is its :class:`ExactJudge`.

    Examples:
        ```python
        from sb3_contrib import MaskablePPO
        from tttlab.envs import TicTacToeEnv
        from tttlab.integrations.sb3 import exact_eval_callback

        model = MaskablePPO("MlpPolicy", TicTacToeEnv(seat="X", opponent="random"))
        callback = exact_eval_callback(every=4096, seat="X")
        model.learn(65_536, callback=callback)   # tttlab/X/optimal_share ... in SB3's logger
        callback.judge.records[-1]["X"]["optimal_share"]
        ```
    """
    try:
        from stable_baselines3.common.callbacks import BaseCallback
    except ImportError:
        raise TttlabError(
            "the Stable-Baselines3 callback needs stable-baselines3: pip install 'tttlab[sb3]'"
        ) from None
    if not isinstance(every, int) or every < 1:
        raise TttlabError(f"every must be a whole number of steps of at least 1, got {every!r}")
    judge = ExactJudge(board, seat, extra)

    class ExactEvalCallback(BaseCallback):  # type: ignore[misc]
        """Exact metrics every ``every`` steps, in the model's logger."""

        def __init__(self) -> None:
            super().__init__(verbose)
            self.judge = judge

        def _record(self) -> None:
            point = self.judge(self.model, self.num_timesteps)
            for name, report in point.items():
                if name not in ("X", "O"):
                    continue
                for metric in ("optimal_share", "worst_case", "score_vs_random"):
                    self.logger.record(f"tttlab/{name}/{metric}", report[metric])

        def _on_step(self) -> bool:
            if self.n_calls % every == 0:
                self._record()
            return True

        def _on_training_end(self) -> None:
            if not self.judge.records or self.judge.records[-1]["steps"] != self.num_timesteps:
                self._record()

    return ExactEvalCallback()
