"""Starting a run (``tttlab.training.runs``): a learner that cannot be loaded says why."""

from __future__ import annotations

import re

import pytest


@pytest.mark.parametrize(
    ("missing", "words"),
    [
        ("jax", "need the neural extra (jax is missing)"),
        ("equinox.nn", "need the neural extra (equinox.nn is missing)"),
        ("somebody_elses", "cannot be loaded: ModuleNotFoundError: No module named"),
    ],
)
def test_only_a_missing_neural_package_is_called_a_missing_extra(
    missing: str, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    from tttlab.errors import ConfigError
    from tttlab.training.runs import _neural

    def fail(name: str, package: str | None = None) -> None:
        raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)

    monkeypatch.setattr(importlib, "import_module", fail)
    with pytest.raises(ConfigError, match=re.escape(words)):
        _neural("dqn")
