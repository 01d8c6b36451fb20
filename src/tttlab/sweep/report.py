"""Summaries of a sweep: per configuration and episode count, the share of seeds that are
unbeatable on both seats, with a 95% Wilson interval; and the plot of it."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["plot_summary", "summarise", "wilson"]


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The 95% Wilson score interval of a binomial share (good at 0/n and n/n too).

    >>> [round(x, 3) for x in wilson(20, 20)]
    [0.839, 1.0]
    """
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def configuration(row: dict[str, Any]) -> str:
    """A configuration's label: the algorithm and its ``--set`` values."""
    import json

    options = json.loads(row["hyperparameters"])
    extra = " ".join(f"{k}={v}" for k, v in sorted(options.items()))
    return f"{row['algorithm']} {extra}".strip()


def summarise(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per configuration and episode count, in a stable order."""
    groups: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((configuration(row), row["board"], row["episodes"]), []).append(row)
    summary = []
    for (label, board, episodes), members in sorted(groups.items()):
        n = len(members)
        k = sum(1 for r in members if r["unbeatable"])
        perfect = sum(1 for r in members if r["perfect"])
        low, high = wilson(k, n)
        summary.append(
            {
                "configuration": label,
                "board": board,
                "episodes": episodes,
                "seeds": n,
                "unbeatable": k,
                "perfect": perfect,
                "share": k / n,
                "low": low,
                "high": high,
                "seconds_mean": sum(r["seconds"] for r in members) / n,
            }
        )
    return summary


def plot_summary(summary: list[dict[str, Any]], path: Path, title: str) -> None:
    """The share of unbeatable seeds against episodes, a line per configuration, with its
    95% interval as a band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.5), constrained_layout=True)
    labels = list(dict.fromkeys(s["configuration"] for s in summary))
    for label in labels:
        points = sorted(
            (s for s in summary if s["configuration"] == label), key=lambda s: s["episodes"]
        )
        x = [s["episodes"] for s in points]
        line = ax.plot(x, [s["share"] for s in points], marker="o", label=label)[0]
        ax.fill_between(
            x,
            [s["low"] for s in points],
            [s["high"] for s in points],
            color=line.get_color(),
            alpha=0.18,
            linewidth=0,
        )
    if len({s["episodes"] for s in summary}) > 1:
        ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("episodes")
    ax.set_ylabel("share of seeds unbeatable on both seats")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=10)
    fig.savefig(path, dpi=110)
    plt.close(fig)
