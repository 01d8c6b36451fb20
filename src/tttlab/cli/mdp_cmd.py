"""``ttt mdp``: the game against a fixed opponent as an MDP, solved exactly. Until the next
release ``ttt solve --mdp`` takes the same options, hidden, and runs this too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
import numpy as np

from tttlab import api
from tttlab.agents import Agent
from tttlab.cli.common import (
    CommandError,
    FiniteFloat,
    board_options,
    json_option,
    out,
    print_json,
    side_option,
    writable_target,
)
from tttlab.cli.loading import load_agents
from tttlab.game import Geometry, Player, StateSpaceTooLarge
from tttlab.io import save_agent
from tttlab.render import board_text
from tttlab.solvers import solve_table

if TYPE_CHECKING:  # tttlab.planning (scipy.sparse.linalg) loads only when an MDP is solved
    from tttlab.planning import MDP, MDPSolution
    from tttlab.planning.build import RewardScheme

F = TypeVar("F", bound=Callable[..., Any])

#: A file to write (not a folder).
FILE = click.Path(dir_okay=False, path_type=Path)


def mdp_options(hidden: bool = False) -> Callable[[F], F]:
    """The MDP's options, each into a keyword of :func:`solve_mdp` (``None`` or ``False``
    when not given); ``hidden`` for ``ttt solve --mdp``, which takes them without listing
    them."""

    def option(name: str, help: str, **kind: Any) -> Callable[[F], F]:
        return click.option(name, default=None, hidden=hidden, help=help, **kind)

    def flag(name: str, help: str) -> Callable[[F], F]:
        return click.option(name, is_flag=True, hidden=hidden, help=help)

    def path(name: str, dest: str, help: str) -> Callable[[F], F]:
        return click.option(name, dest, type=FILE, default=None, hidden=hidden, help=help)

    options = [
        side_option("The deciding seat (default X).", hidden=hidden),
        option("--opponent", "The fixed opponent (default random)."),
        option(
            "--method", "Value or policy iteration (default vi).", type=click.Choice(["vi", "pi"])
        ),
        option(
            "--gamma",
            "Discount (default 1, the undiscounted game).",
            type=FiniteFloat(0.0, 1.0, min_open=True),
        ),
        option(
            "--rewards",
            "+1/-1/0 (standard) or the seed's -1 per move, +10 for a win.",
            type=click.Choice(["standard", "time-greedy"]),
        ),
        flag("--soft-constraint", "Illegal actions loop with reward -10 instead of being masked."),
        option(
            "--tol",
            "Value iteration stops when no value changes by this much.",
            type=FiniteFloat(0.0, min_open=True),
        ),
        path("--out", "out_path", "Write the solved policy as an agent file."),
        path("--export-dense", "dense_path", "Write dense P (S x S x A) and R to an .npz."),
        path("--export", "sparse_path", "Write sparse P (CSR per action) and R to an .npz."),
        flag("--explain", "Show the MDP for a person."),
    ]

    def add(func: F) -> F:
        for add_option in reversed(options):
            func = add_option(func)
        return func

    return add


@click.command("mdp")
@board_options
@json_option
@mdp_options()
def mdp_command(board: Geometry | None, k: int | None, as_json: bool, **options: Any) -> None:
    """Solve the game against a fixed opponent as a Markov decision process: P and R built
    exactly, then value or policy iteration."""
    solve_mdp(board, k, as_json, **options)


def solve_mdp(
    board: Geometry | None,
    k: int | None,
    as_json: bool,
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
) -> None:
    """``ttt mdp``, its options' defaults applied."""
    for path, option in (
        (out_path, "'--out'"),
        (dense_path, "'--export-dense'"),
        (sparse_path, "'--export'"),
    ):
        if path is not None:
            writable_target(path, option)
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


def run_mdp(
    geometry: Geometry,
    seat: Player,
    opponent: Agent,
    opponent_spec: str,
    method: str,
    gamma: float,
    rewards: RewardScheme,
    soft_constraint: bool,
    tol: float,
    as_json: bool,
    out_path: Path | None,
    dense_path: Path | None,
    sparse_path: Path | None,
    explain: bool,
) -> None:
    try:
        result = api.mdp(seat, opponent, geometry, method, gamma, rewards, soft_constraint, tol)
    except StateSpaceTooLarge as error:
        raise CommandError(f"cannot build an MDP on {geometry.name}: {error}") from None
    except api.TttlabError as error:
        raise CommandError(str(error)) from None
    mdp, solution = result.mdp, result.solution
    summary: dict[str, Any] = {**result.to_dict(), "opponent": opponent_spec}
    if dense_path is not None:
        mdp.export_dense(dense_path)
        summary["export_dense"] = str(dense_path)
    if sparse_path is not None:
        mdp.export_sparse(sparse_path)
        summary["export"] = str(sparse_path)
    if out_path is not None:
        header = {
            "method": method,
            "gamma": gamma,
            "rewards": rewards,
            "seat": seat.name,
            "opponent": opponent_spec,
            "soft_constraint": soft_constraint,
        }
        from tttlab.planning import mdp_agent

        agent = mdp_agent(mdp, solution, {"hyperparameters": header})
        save_agent(out_path, agent, episodes=0, seed=0, hyperparameters=header)
        summary["out"] = str(out_path)
    if as_json:
        print_json(summary)
        return
    if explain:
        explain_mdp(mdp, solution, opponent_spec)
        return
    out.print(
        f"{seat.name} against {opponent_spec} on {geometry.name} as an MDP: "
        f"{mdp.n_states - 3} decision states + 3 absorbing (draw, win, loss)"
        f"{', reduced by symmetry' if mdp.symmetric else ''}."
    )
    out.print(
        f"{'Value iteration' if method == 'vi' else 'Policy iteration'} "
        f"(gamma {gamma:g}): expected reward {summary['value']:.12g} after "
        f"{solution.iterations} iterations (residual {solution.residual:.1e})."
    )
    for key in ("out", "export_dense", "export"):
        if key in summary:
            out.print(f"Wrote {summary[key]}.")


def explain_mdp(mdp: MDP, solution: MDPSolution, opponent_spec: str) -> None:
    """A person's view: sizes, one row of P as boards, and where the policy gambles."""
    space = mdp.space
    seat = mdp.seat
    out.print(
        f"States: {mdp.n_states - 3} positions where {seat.name} moves (up to symmetry), "
        f"plus draw, win and loss: S = {mdp.n_states}; actions: A = {mdp.n_actions} "
        f"cells."
    )
    nnz = sum(m.nnz for m in mdp.P)
    out.print(
        f"P holds {nnz:,} non-zero entries out of S x S x A = {mdp.n_states**2 * mdp.n_actions:,}."
    )
    # One row of P: the first decision state with a legal move that does not end the game.
    s = 1 if mdp.n_states > 4 else 0
    a = int(np.flatnonzero(mdp.legal[s])[0])
    pos = space.position(int(mdp.positions[s]))
    out.print(f"\nState {s}, {seat.name} to move:")
    out.print(board_text(pos))
    out.print(f"Action {a + 1} (cell {a}), then {opponent_spec} answers; row P[{s}, :, {a}]:")
    row = mdp.P[a].getrow(s)
    draw, win, loss = mdp.terminal_states
    names = {draw: "draw", win: "win", loss: "loss"}
    for target, p in sorted(zip(row.indices, row.data, strict=True), key=lambda t: t[0]):
        label = names.get(int(target), f"state {int(target)}")
        out.print(f"  -> {label} with probability {p:.4f}")
        if int(target) not in names:
            out.print(board_text(space.position(int(mdp.positions[target])), numbers=False))
    out.print(f"R[{s}, {a}] = {mdp.R[s, a]:.4f}")

    exact = solve_table(space.geometry)
    risky = []
    for t in range(mdp.n_states - 3):
        i = int(mdp.positions[t])
        best = solution.Q[t].max()
        moves = np.flatnonzero(np.isclose(solution.Q[t], best, atol=1e-12) & mdp.legal[t])
        if not exact.optimal[i, moves].all():
            risky.append((t, moves))
    out.print(
        f"\nValue against {opponent_spec}: {solution.value(mdp):.6f}. The MDP policy plays a "
        f"move that gives away the game-theoretic value in {len(risky)} of "
        f"{mdp.n_states - 3} states; minimax never does."
    )
    if risky:
        t, moves = risky[0]
        i = int(mdp.positions[t])
        pos = space.position(i)
        safe = [int(m) + 1 for m in np.flatnonzero(exact.optimal[i])]
        out.print(f"For example, {seat.name} to move here:")
        out.print(board_text(pos))
        out.print(
            f"the MDP plays {[int(m) + 1 for m in moves]} (expected reward "
            f"{solution.Q[t].max():.4f}); minimax keeps to {safe}, which against "
            f"{opponent_spec} is worth only "
            f"{max(solution.Q[t][m - 1] for m in safe):.4f}."
        )
