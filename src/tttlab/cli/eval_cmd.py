"""``ttt eval``: exact evaluation of an agent on each seat."""

from __future__ import annotations

from fractions import Fraction

import click

from tttlab import api
from tttlab.cli.common import CommandError, board_options, err, json_option, out, print_json
from tttlab.cli.loading import load_agents
from tttlab.game import Geometry, StateSpaceTooLarge


def _frac(x: float) -> str:
    return str(Fraction(x).limit_denominator(1_000_000))


@click.command("eval")
@click.argument("agent")
@click.option(
    "--as",
    "side",
    type=click.Choice(["X", "O", "x", "o"]),
    default=None,
    help="Evaluate one seat only (default: every seat the agent plays).",
)
@board_options
@json_option
def eval_command(
    agent: str, side: str | None, board: Geometry | None, k: int | None, as_json: bool
) -> None:
    """Evaluate AGENT exactly: worst case, results against random, optimal share."""
    geometry, (player,) = load_agents([agent], board, k)
    try:
        with err.status(f"Evaluating {player.name} on {geometry.name}…"):
            reports = api.evaluate(player, geometry, side).to_dict()
    except StateSpaceTooLarge as error:
        raise CommandError(str(error)) from None
    except ValueError as error:  # e.g. a seat the agent was not trained for
        raise CommandError(str(error)) from None
    if as_json:
        print_json(reports)
        return
    out.print(f"[bold]{player.name}[/bold] on {geometry.name} (exact, over the whole game graph)")
    for seat, r in reports.items():
        verdict = {1: "wins", 0: "draws", -1: "can be beaten"}[r["worst_case"]]
        win, draw, loss = (r["vs_random"][key] for key in ("win", "draw", "loss"))
        out.print(
            f"As {seat}: against a best reply it {verdict}; against random it wins "
            f"{win:.4f} ({_frac(win)}), draws {draw:.4f}, loses {loss:.4f} "
            f"({_frac(loss)}); optimal in {r['optimal_share']:.2%} of "
            f"{r['decision_positions']:,} reachable decisions."
        )
