"""``ttt demo``: the main job that ``make demo`` runs."""

from __future__ import annotations

import json
from pathlib import Path

import click
import numpy as np
from rich.table import Table

from tttlab.agents import Agent, PerfectAgent, RandomAgent
from tttlab.cli.common import out
from tttlab.cli.solve_cmd import solve_command
from tttlab.cli.train_cmd import train_command
from tttlab.game import DEFAULT, Position
from tttlab.render import board_text


@click.command("demo")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--episodes", type=click.IntRange(min=1000), default=200_000, show_default=True)
@click.option(
    "--dir",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("artifacts"),
    show_default=True,
    help="Where the trained agent, its log and its learning curve go.",
)
@click.pass_context
def demo_command(ctx: click.Context, seed: int, episodes: int, folder: Path) -> None:
    """Solve 3x3, show perfect play against random, then train, judge and plot a learner."""
    ctx.invoke(solve_command, board=None, k=None, as_json=False)

    rng = np.random.default_rng(seed)
    players: dict[int, Agent] = {1: PerfectAgent(DEFAULT), 2: RandomAgent(DEFAULT)}
    position = Position.initial(DEFAULT)
    out.print("\n[bold]A game: perfect (X) against random (O)[/bold]")
    while not position.is_terminal:
        side = position.to_move
        agent = players[int(side)]
        move = agent.select_move(position, rng)
        position = position.apply(move)
        out.print(f"\n{agent.name} ({side.name}) plays {move + 1}:")
        out.print(board_text(position, numbers=False))
    out.print(f"\nResult: {position.outcome}.")

    folder.mkdir(parents=True, exist_ok=True)
    agent_path, curve, log = folder / "td.npz", folder / "td-curve.png", folder / "td-log.jsonl"
    out.print(f"\n[bold]TD(0) self-play, {episodes:,} episodes, judged exactly[/bold]")
    ctx.invoke(
        train_command,
        algorithm="td",
        episodes=episodes,
        seed=seed,
        out_path=agent_path,
        curve=curve,
        log_path=log,
        eval_every=max(1, episodes // 10),
    )
    table = Table(title="Learning curve (exact metrics)")
    for column in (
        "episodes",
        "X optimal",
        "O optimal",
        "X worst",
        "O worst",
        "X vs random",
        "O vs random",
    ):
        table.add_column(column, justify="right")
    for line in log.read_text().splitlines():
        r = json.loads(line)
        table.add_row(
            f"{r['episode']:,}",
            f"{r['X']['optimal_share']:.3f}",
            f"{r['O']['optimal_share']:.3f}",
            f"{r['X']['worst_case']:+d}",
            f"{r['O']['worst_case']:+d}",
            f"{r['X']['score_vs_random']:+.3f}",
            f"{r['O']['score_vs_random']:+.3f}",
        )
    out.print(table)
    out.print(f"Play it: ttt play --opponent {agent_path} --show-values")
