"""``ttt policy``: every move an agent may play, in every position it may face."""

from __future__ import annotations

import click
import numpy as np

from tttlab.agents import Agent
from tttlab.cli.common import board_options, convention_option, err, json_option, out, print_json
from tttlab.cli.loading import load_agents
from tttlab.game import Geometry, Player, StateSpace, state_space


def policy_table(agent: Agent, space: StateSpace) -> dict[str, list[int]]:
    """Position string → sorted moves, for every reachable non-terminal position where the
    agent plays (both sides for most agents; one for an agent trained on one seat)."""
    seats = [int(s) for s in getattr(agent, "seats", (Player.X, Player.O))]
    table: dict[str, list[int]] = {}
    for i in np.flatnonzero(~space.terminal & np.isin(space.to_move, seats)):
        position = space.position(int(i))
        moves = sorted(m for m, p in agent.move_probabilities(position).items() if p > 0)
        table[position.to_string()] = moves
    return table


@click.command("policy")
@click.argument("agent")
@board_options
@convention_option
@json_option
def policy_command(
    agent: str, board: Geometry | None, k: int | None, as_json: bool, convention: str | None
) -> None:
    """List the moves AGENT may play in every reachable position (a name or a file)."""
    geometry, (player,) = load_agents([agent], board, k, convention=convention)
    with err.status(f"Asking {player.name} about every position…"):
        table = policy_table(player, state_space(geometry))
    if as_json:
        print_json({"board": geometry.name, "agent": player.name, "moves": table})
        return
    for position, moves in table.items():
        out.print(f"{position}  {' '.join(str(m + 1) for m in moves)}")
    out.print(f"{len(table):,} positions; moves are 1-based cell numbers.")
