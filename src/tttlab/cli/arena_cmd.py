"""``ttt arena``: a round robin between agents, each pair playing both sides."""

from __future__ import annotations

import click
from rich.table import Table

from tttlab import api
from tttlab.cli.common import board_options, convention_option, json_option, out, print_json
from tttlab.cli.loading import load_agents
from tttlab.game import Geometry


@click.command("arena")
@click.argument("agents", nargs=-1, required=True)
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Games per ordered pairing (each pair plays this many on each side).",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--depth", type=click.IntRange(min=1), default=None, help="Depth for minimax.")
@board_options
@convention_option
@json_option
def arena_command(
    agents: tuple[str, ...],
    games: int,
    seed: int,
    depth: int | None,
    board: Geometry | None,
    k: int | None,
    as_json: bool,
    convention: str | None,
) -> None:
    """Play a round robin between AGENTS (names or files); each pair plays both sides."""
    if len(agents) < 2:
        raise click.BadParameter("name at least two agents", param_hint="AGENTS")
    geometry, players = load_agents(list(agents), board, k, depth, convention=convention)
    result = api.arena(players, geometry, games, seed, names=_labels(list(agents)))
    pairings, standings = result.pairings, result.standings
    if as_json:
        print_json(result.to_dict())
        return
    table = Table(title=f"Arena on {geometry.name}: {games} games per pairing and side")
    for column in ("agent", "W", "D", "L", "points", "as X (W/D/L)", "as O (W/D/L)"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    ranked = sorted(standings.items(), key=lambda item: -item[1].points)
    for name, s in ranked:
        table.add_row(
            name,
            str(s.win),
            str(s.draw),
            str(s.loss),
            f"{s.points:g}",
            "/".join(map(str, s.by_side["X"])),
            "/".join(map(str, s.by_side["O"])),
        )
    out.print(table)
    pairs = Table(title="Pairings")
    for column in ("X", "O", "X wins", "draws", "O wins"):
        pairs.add_column(column)
    for p in pairings:
        pairs.add_row(p.x, p.o, str(p.x_wins), str(p.draws), str(p.o_wins))
    out.print(pairs)


def _labels(specs: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return labels
