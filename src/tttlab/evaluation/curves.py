"""Learning curves: exact metrics every N episodes, drawn with matplotlib."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tttlab.agents import Agent
from tttlab.evaluation.exact import evaluate_seats
from tttlab.evaluation.sampled import sampled_evaluation
from tttlab.game import Geometry, Player, StateSpaceTooLarge, check_enumerable, state_space
from tttlab.limits import ROUTINE_JUDGE_POSITIONS

__all__ = ["SAMPLED_GAMES", "curve_point", "plot_curve", "routine_judging"]

#: Games against random per seat at a curve point on boards too big for the whole graph.
SAMPLED_GAMES = 200


def routine_judging(geometry: Geometry) -> bool:
    """Whether ``geometry`` is small enough to judge exactly without being asked (after
    training, at curve points): see :data:`tttlab.limits.ROUTINE_JUDGE_POSITIONS`."""
    try:
        check_enumerable(geometry)
    except StateSpaceTooLarge:
        return False
    return state_space(geometry).size <= ROUTINE_JUDGE_POSITIONS


def curve_point(
    agent: Agent, geometry: Geometry, seats: Sequence[Player], seed: int, episode: int
) -> dict[str, Any]:
    """One point of a learning curve: the exact metrics over the whole game graph where
    that is routine; on bigger boards, :data:`SAMPLED_GAMES` games against random per seat,
    each decision judged by the exact proof search (``"sampled": true``)."""
    if routine_judging(geometry):
        reports = evaluate_seats(agent, geometry, tuple(seats))
        return {"episode": episode, **{seat: r.as_json() for seat, r in reports.items()}}
    rng = np.random.default_rng([seed, episode])
    sampled = {
        side.name: sampled_evaluation(agent, geometry, side, SAMPLED_GAMES, rng).as_json()
        for side in seats
    }
    return {"episode": episode, "sampled": True, **sampled}


def plot_curve(records: Sequence[dict[str, Any]], path: str | Path, title: str) -> None:
    """Draw optimal share, score against random and worst case per seat against episodes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    episodes = [r["episode"] for r in records]
    metrics = [
        ("optimal_share", "share of decisions that are optimal", (0.0, 1.02)),
        ("score_vs_random", "expected score vs random (win − loss)", (-1.02, 1.02)),
        ("worst_case", "worst case vs best reply", (-1.1, 1.1)),
    ]
    # A sampled curve (a board too big for the whole graph) has no worst case: no empty panel.
    present = [m for m in metrics if any(m[0] in r.get(s, {}) for r in records for s in "XO")]
    metrics = present or metrics
    fig, axes = plt.subplots(1, len(metrics), figsize=(4.4 * len(metrics), 3.8), squeeze=False)
    fig.set_layout_engine("constrained")
    for ax, (key, label, limits) in zip(axes[0], metrics, strict=True):
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
