"""``ttt solve``: the exact value of a board, with counts of its positions and games."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tttlab import api
from tttlab.cli.common import (
    CommandError,
    FiniteFloat,
    board_options,
    err,
    file_option,
    geometry_from,
    json_option,
    out,
    print_json,
    side_option,
    writable_target,
)
from tttlab.cli.loading import load_agents
from tttlab.game import (
    Geometry,
    Player,
    Position,
    check_enumerable,
)
from tttlab.render import board_text
from tttlab.solvers.bitboard import SearchTooLarge


def search_summary(geometry: Geometry) -> dict[str, Any]:
    """The JSON of ``ttt solve`` by compiled proof search (documented in docs/reference/json.md)."""
    try:
        return api.solve(geometry, "search").to_dict()
    except SearchTooLarge as error:
        raise CommandError(str(error)) from None


def solve_summary(geometry: Geometry) -> dict[str, Any]:
    """The JSON of ``ttt solve`` from the full table (documented in docs/reference/json.md)."""
    return api.solve(geometry, "table").to_dict()


@click.command("solve")
@board_options
@json_option
@click.option("--mdp", is_flag=True, help="Solve the game against a fixed opponent as an MDP.")
@side_option("MDP: the deciding seat (default X).")
@click.option("--opponent", default=None, help="MDP: the fixed opponent (default random).")
@click.option(
    "--method",
    type=click.Choice(["vi", "pi"]),
    default=None,
    help="MDP: value iteration or policy iteration (default vi).",
)
@click.option(
    "--gamma",
    type=FiniteFloat(0.0, 1.0, min_open=True),
    default=None,
    help="MDP: discount (default 1, the undiscounted game).",
)
@click.option(
    "--rewards",
    type=click.Choice(["standard", "time-greedy"]),
    default=None,
    help="MDP: +1/-1/0 (standard) or the seed's -1 per move, +10 for a win.",
)
@click.option(
    "--soft-constraint",
    is_flag=True,
    help="MDP: illegal actions loop with reward -10 instead of being masked.",
)
@click.option(
    "--tol",
    type=FiniteFloat(0.0, min_open=True),
    default=None,
    help="MDP: value iteration stops when no value changes by this much.",
)
@file_option("--out", "out_path", "MDP: write the solved policy as an agent file.")
@file_option("--export-dense", "dense_path", "MDP: write dense P (S x S x A) and R to an .npz.")
@file_option("--export", "sparse_path", "MDP: write sparse P (CSR per action) and R to an .npz.")
@click.option("--explain", is_flag=True, help="MDP: show the MDP for a person.")
@click.option(
    "--engine",
    "solve_method",
    type=click.Choice(["auto", "table", "search"]),
    default="auto",
    show_default=True,
    help="Without --mdp: the full table (every position, with counts) or the compiled proof "
    "search; auto picks the table up to 1 million candidate positions.",
)
@click.option(
    "--positions",
    is_flag=True,
    help="Enumerate and count every reachable position (the table method), where memory allows.",
)
def solve_command(
    board: Geometry | None,
    k: int | None,
    as_json: bool,
    mdp: bool = False,
    side: str | None = None,
    opponent: str | None = None,
    method: str | None = None,
    gamma: float | None = None,
    rewards: str | None = None,
    soft_constraint: bool = False,
    tol: float | None = None,
    out_path: Path | None = None,
    dense_path: Path | None = None,
    sparse_path: Path | None = None,
    explain: bool = False,
    solve_method: str = "auto",
    positions: bool = False,
) -> None:
    """Solve a board exactly (value, positions, games), or with --mdp the game against a
    fixed opponent as a Markov decision process."""
    mdp_only = {
        "--as": side,
        "--opponent": opponent,
        "--method": method,
        "--gamma": gamma,
        "--rewards": rewards,
        "--tol": tol,
        "--out": out_path,
        "--export-dense": dense_path,
        "--export": sparse_path,
    }
    if not mdp:
        given = [name for name, v in mdp_only.items() if v is not None]
        given += [
            n for n, f in (("--soft-constraint", soft_constraint), ("--explain", explain)) if f
        ]
        if given:
            raise click.UsageError(f"{', '.join(given)} only work with --mdp")
    else:
        for path, option in (
            (out_path, "'--out'"),
            (dense_path, "'--export-dense'"),
            (sparse_path, "'--export'"),
        ):
            if path is not None:
                writable_target(path, option)
        from tttlab.cli.mdp_cmd import run_mdp  # scipy.sparse.linalg only when needed

        spec = opponent or "random"
        geometry, (fixed,) = load_agents([spec], board, k)
        run_mdp(
            geometry,
            Player.parse(side or "X"),
            fixed,
            spec,
            method or "vi",
            1.0 if gamma is None else gamma,
            rewards or "standard",  # type: ignore[arg-type]
            soft_constraint,
            tol or 1e-12,
            as_json,
            out_path,
            dense_path,
            sparse_path,
            explain,
        )
        return
    geometry = geometry_from(board, k)
    use_table = positions or api.uses_table(geometry, solve_method)
    if not use_table:
        with err.status(f"Proving the value of {geometry.name}…"):
            summary = search_summary(geometry)
        if as_json:
            print_json(summary)
            return
        verdict = {1: "X wins", 0: "a draw", -1: "O wins"}[summary["value"]]
        out.print(
            f"[bold]{geometry.name}[/bold]: with perfect play the game is {verdict} "
            f"(proved by search: {summary['nodes']:,} nodes, {summary['table_entries']:,} "
            f"table entries, {summary['seconds']} s)."
        )
        return
    check_enumerable(geometry)
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
