"""``ttt solve``: the exact value of a board, with counts of its positions and games."""

from __future__ import annotations

import time
from typing import Any

import click
import numpy as np

from tttlab.cli.common import board_options, err, geometry_from, json_option, out, print_json
from tttlab.game import Geometry, Position
from tttlab.render import board_text
from tttlab.solve import solve


def solve_summary(geometry: Geometry) -> dict[str, Any]:
    """The JSON document of ``ttt solve`` (documented in the README)."""
    started = time.perf_counter()
    solution = solve(geometry)
    space = solution.space
    paths = space.path_counts()
    draws = space.terminal & (space.winner == 0)
    empty = Position.initial(geometry)
    return {
        "board": geometry.name,
        "value": int(solution.value[0]),
        "depth": int(solution.depth[0]),
        "positions": space.size,
        "terminal": int(space.terminal.sum()),
        "terminal_split": {
            "x_wins": int((space.winner == 1).sum()),
            "o_wins": int((space.winner == 2).sum()),
            "draws": int(draws.sum()),
        },
        "symmetric_positions": int(np.unique(space.canonical).size),
        "symmetric_nonterminal": int(np.unique(space.canonical[~space.terminal]).size),
        "game_tree": {
            "nodes": int(paths.sum()),
            "games": int(paths[space.terminal].sum()),
            "x_wins": int(paths[space.winner == 1].sum()),
            "o_wins": int(paths[space.winner == 2].sum()),
            "draws": int(paths[draws].sum()),
        },
        "optimal_first_moves": list(solution.optimal_moves(empty)),
        "best_first_moves": list(solution.best_moves(empty)),
        "seconds": round(time.perf_counter() - started, 3),
    }


@click.command("solve")
@board_options
@json_option
def solve_command(board: Geometry | None, k: int | None, as_json: bool) -> None:
    """Solve a board exactly: game value, position and game counts."""
    geometry = geometry_from(board, k)
    with err.status(f"Solving {geometry.name}…"):
        summary = solve_summary(geometry)
    if as_json:
        print_json(summary)
        return
    verdict = {1: "X wins", 0: "a draw", -1: "O wins"}[summary["value"]]
    split = summary["terminal_split"]
    tree = summary["game_tree"]
    out.print(
        f"[bold]{geometry.name}[/bold]: with perfect play the game is {verdict} "
        f"(it lasts {summary['depth']} plies)."
    )
    out.print(
        f"Reachable positions: {summary['positions']:,} "
        f"({summary['symmetric_positions']:,} up to symmetry), of which "
        f"{summary['terminal']:,} are final: X wins {split['x_wins']:,}, "
        f"O wins {split['o_wins']:,}, draws {split['draws']:,}."
    )
    out.print(
        f"Game tree: {tree['nodes']:,} nodes and {tree['games']:,} complete games "
        f"(X wins {tree['x_wins']:,}, O wins {tree['o_wins']:,}, draws {tree['draws']:,})."
    )
    first = [m + 1 for m in summary["best_first_moves"]]
    out.print(f"Best first moves (cells as numbered below): {first}")
    out.print(board_text(Position.initial(geometry)))
    out.print(f"Solved in {summary['seconds']} s.")
