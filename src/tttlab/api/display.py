"""Small HTML summaries for notebooks: evaluations, agents, arenas and plain mappings."""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tttlab.api.agents import TrainedAgent, TrainedNetwork
    from tttlab.api.results import ArenaResult, Evaluation, Proof

__all__ = [
    "agent_intro_html",
    "arena_html",
    "evaluation_html",
    "intro_html",
    "mapping_html",
    "network_intro_html",
]

_STYLE = "border-collapse:collapse;font-family:sans-serif;font-size:13px"
_CELL = "border:1px solid #cbd5e1;padding:3px 8px;text-align:right"


def _table(title: str, header: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f'<th style="{_CELL}">{html.escape(str(h))}</th>' for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td style="{_CELL}">{html.escape(str(v))}</td>' for v in row) + "</tr>"
        for row in rows
    )
    return (
        f'<table style="{_STYLE}"><caption style="text-align:left"><b>{html.escape(title)}'
        f"</b></caption><tr>{head}</tr>{body}</table>"
    )


def evaluation_html(evaluation: Evaluation | Proof) -> str:
    rows = []
    proved = False
    for seat, report in evaluation.to_dict().items():
        vs = report["vs_random"]
        share = report["optimal_share"]
        proved = proved or bool(report.get("proved"))
        rows.append(
            [
                seat,
                f"{report['worst_case']:+d}",
                "—" if share is None else f"{share:.4f}",
                "—" if vs is None else f"{vs['win']:.4f} / {vs['draw']:.4f} / {vs['loss']:.4f}",
                f"{report['decision_positions']:,}",
            ]
        )
    how = "proved without a table" if proved else "exact evaluation"
    return _table(
        f"{evaluation.agent} on {evaluation.board}: {how}",
        ["seat", "worst case", "optimal share", "vs random W / D / L", "decisions"],
        rows,
    )


def intro_html(agent: TrainedAgent | TrainedNetwork) -> str:
    """A line about a learned agent: what learned it, on which board, for how long."""
    from tttlab.agents.network import NetworkAgent

    if isinstance(agent, NetworkAgent):
        return network_intro_html(agent)
    return agent_intro_html(agent)


def agent_intro_html(agent: TrainedAgent) -> str:
    episodes = agent.meta.get("episodes", "?")
    return (
        f"<p style='font-family:sans-serif'><b>{html.escape(agent.algorithm)}</b> on "
        f"{agent.geometry.name}, {episodes:,} episodes, seats "
        f"{', '.join(s.name for s in agent.seats)}</p>"
        if isinstance(episodes, int)
        else f"<p><b>{html.escape(agent.algorithm)}</b> on {agent.geometry.name}</p>"
    )


def network_intro_html(agent: TrainedNetwork) -> str:
    episodes = agent.meta.get("episodes")
    played = f", {episodes:,} self-play games" if isinstance(episodes, int) else ""
    conv = agent.architecture.conv
    convolved = f"3x3 convolutions {conv}, " if conv else ""
    return (
        f"<p style='font-family:sans-serif'><b>{html.escape(agent.algorithm)}</b> network on "
        f"{agent.geometry.name}{played}, {convolved}hidden {agent.architecture.hidden}</p>"
    )


def arena_html(result: ArenaResult) -> str:
    data = result.to_dict()
    rows = [
        [name, s["win"], s["draw"], s["loss"], f"{s['points']:g}"]
        for name, s in sorted(data["standings"].items(), key=lambda kv: -kv[1]["points"])
    ]
    return _table(
        f"Arena on {result.board}: {result.games} games per pairing and side",
        ["agent", "W", "D", "L", "points"],
        rows,
    )


def mapping_html(title: str, data: dict[str, Any]) -> str:
    rows = [
        [key, json.dumps(value) if isinstance(value, (dict, list)) else value]
        for key, value in data.items()
    ]
    return _table(title, ["", ""], rows)
