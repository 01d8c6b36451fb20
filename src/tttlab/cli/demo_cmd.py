"""``ttt demo``: the main job that ``make demo`` runs."""

from __future__ import annotations

import click
import numpy as np

from tttlab.agents import Agent, PerfectAgent, RandomAgent
from tttlab.cli.common import out
from tttlab.cli.solve_cmd import solve_command
from tttlab.game import DEFAULT, Position
from tttlab.render import board_text


@click.command("demo")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.pass_context
def demo_command(ctx: click.Context, seed: int) -> None:
    """Solve 3x3 tic-tac-toe, then show perfect play against a random opponent."""
    ctx.invoke(solve_command, board=DEFAULT, k=None, as_json=False)
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
