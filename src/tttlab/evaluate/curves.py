"""Learning curves: exact metrics every N episodes, drawn with matplotlib."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["plot_curve"]


def plot_curve(records: Sequence[dict[str, Any]], path: str | Path, title: str) -> None:
    """Draw optimal share, score against random and worst case per seat against episodes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    episodes = [r["episode"] for r in records]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), constrained_layout=True)
    metrics = [
        ("optimal_share", "share of decisions that are optimal", (0.0, 1.02)),
        # (sampled on boards too big for the whole graph; judged exactly by proof search)
        ("score_vs_random", "expected score vs random (win − loss)", (-1.02, 1.02)),
        ("worst_case", "worst case vs best reply", (-1.1, 1.1)),
    ]
    for ax, (key, label, limits) in zip(axes, metrics, strict=True):
        for seat, style in (("X", "-"), ("O", "--")):
            values = [r[seat][key] for r in records if seat in r and key in r[seat]]
            if values:
                ax.plot(episodes[: len(values)], values, style, label=seat, marker=".")
        ax.set_title(label, fontsize=10)
        ax.set_xlabel("episodes")
        ax.set_ylim(*limits)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.savefig(path, dpi=110)
    plt.close(fig)
