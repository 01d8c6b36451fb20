"""``ttt eval``: exact evaluation of an agent on each seat."""

from __future__ import annotations

import time
from fractions import Fraction
from functools import partial
from typing import Any

import click
import numpy as np
from rich.markup import escape

from tttlab import api
from tttlab.agents import Agent, AgentError
from tttlab.agents.network import NetworkAgent
from tttlab.cli.common import (
    CommandError,
    board_options,
    convention_option,
    err,
    json_option,
    out,
    print_json,
    side_option,
)
from tttlab.cli.loading import load_agents
from tttlab.errors import TttlabError
from tttlab.evaluation.exact import TableProgress
from tttlab.evaluation.sampled import sampled_decisions
from tttlab.evaluation.worstcase import ProofProgress, ProofReport
from tttlab.game import Geometry, Player, Position, StateSpaceTooLarge
from tttlab.limits import PROOF_BATCH
from tttlab.render import board_text
from tttlab.training.watchers import StatusLine
from tttlab.unboxed import UserAgent, sampling_if_it_differs


def _frac(x: float) -> str:
    return str(Fraction(x).limit_denominator(1_000_000))


@click.command("eval")
@click.argument("agent")
@side_option("Evaluate one seat only (default: every seat the agent plays).")
@click.option(
    "--sample",
    type=click.IntRange(1, 1_000_000),
    default=None,
    help="Judge this many of the agent's decisions, sampled from its games against random, "
    "each with the exact proof search (for boards too big for the whole graph).",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, help="Seed for --sample.")
@click.option(
    "--prove",
    is_flag=True,
    help="Prove the worst case without a table, on any board: walk every game the agent can "
    "play (every reply of the opponent, each of the agent's tied moves), and show the "
    "shortest losing line if there is one.",
)
@click.option(
    "--seconds",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="With --prove: the time the whole proof may take. A seat neither proved nor beaten "
    "by then is an error (nothing proved either way), not a verdict. Looked at between batches "
    f"of {PROOF_BATCH:,} positions.",
)
@click.option(
    "--stochastic",
    is_flag=True,
    help="Judge a policy network (ppo, alphazero) by its own move distribution, not its "
    "most probable moves.",
)
@board_options
@convention_option
@json_option
def eval_command(
    agent: str,
    side: str | None,
    sample: int | None,
    seed: int,
    board: Geometry | None,
    k: int | None,
    as_json: bool,
    convention: str | None,
    stochastic: bool,
    prove: bool,
    seconds: float | None,
) -> None:
    """Evaluate AGENT exactly: worst case, results against random, optimal share."""
    if prove and sample is not None:
        raise CommandError("--prove and --sample are two ways to judge: choose one")
    if seconds is not None and not prove:
        raise CommandError("--seconds bounds a proof: it applies with --prove")
    geometry, (player,) = load_agents([agent], board, k, convention=convention)
    if stochastic:
        if not isinstance(player, NetworkAgent):
            raise CommandError(
                f"--stochastic applies to policy networks (ppo, alphazero), not {agent}"
            )
        try:
            player = player.with_stochastic()
        except AgentError as error:
            raise CommandError(str(error)) from None
    if sample is not None:
        _sampled(player, geometry, side, sample, seed, as_json)
        return
    if prove:
        _proved(player, agent, geometry, side, as_json, seconds)
        return
    try:
        what = f"{player.name} on {geometry.name}"
        with err.status(f"Evaluating {escape(what)} (solving the game first)…") as status:
            line = StatusLine(status, err)
            reports = api.evaluate(
                player, geometry, side, on_progress=lambda step: line.show(table_text(step, what))
            ).to_dict()
    except StateSpaceTooLarge as error:
        raise CommandError(str(error)) from None
    except ValueError as error:  # e.g. a seat the agent was not trained for
        raise CommandError(str(error)) from None
    _established(player)
    if as_json:
        print_json(reports)
        return
    out.print(f"[bold]{player.name}[/bold] on {geometry.name} (exact, over the whole game graph)")
    if any(r.get("sampled") for r in reports.values()):
        out.print(
            "Not deterministic: what it plays at a position can change from one call to the "
            "next, so the figures below judge a sample of its play, not all of it."
        )
    for seat, r in reports.items():
        verdict = {1: "wins", 0: "draws", -1: "can be beaten"}[r["worst_case"]]
        win, draw, loss = (r["vs_random"][key] for key in ("win", "draw", "loss"))
        out.print(
            f"As {seat}: against a best reply it {verdict}; against random it wins "
            f"{win:.4f} ({_frac(win)}), draws {draw:.4f}, loses {loss:.4f} "
            f"({_frac(loss)}); optimal in {r['optimal_share']:.2%} of "
            f"{r['decision_positions']:,} reachable decisions."
        )


def _sampled(
    player: Agent, geometry: Geometry, side: str | None, decisions: int, seed: int, as_json: bool
) -> None:
    seats = [Player.parse(side)] if side else list(getattr(player, "seats", (Player.X, Player.O)))
    rng = np.random.default_rng(seed)
    reports: dict[str, Any] = {}
    started = time.perf_counter()
    with err.status(f"Judging {decisions:,} sampled decisions of {escape(player.name)}…") as status:
        line = StatusLine(status, err)
        for seat in seats:

            def judged(done: int, seat: Player = seat) -> None:
                line.show(
                    f"Judging {seat.name}'s sampled decisions of {player.name}: {done:,} of "
                    f"{decisions:,} ({time.perf_counter() - started:.0f} s)"
                )

            try:
                report = sampling_if_it_differs(
                    player,
                    partial(sampled_decisions, player, geometry, seat, decisions, rng, judged),
                )
            except ValueError as error:
                raise CommandError(str(error)) from None
            reports[seat.name] = {"sampled": True, **report.as_json()}
    if as_json:
        print_json(reports)
        return
    out.print(
        f"[bold]{player.name}[/bold] on {geometry.name} (sampled: decisions from its games "
        "against random, each judged exactly by the proof search)"
    )
    for seat_name, r in reports.items():
        res = r["vs_random"]
        out.print(
            f"As {seat_name}: optimal in {r['optimal_share']:.2%} of {r['decisions']:,} sampled "
            f"decisions ({r['games']:,} games); against random W {res['win']:.4f} "
            f"D {res['draw']:.4f} L {res['loss']:.4f}."
        )


def _established(player: Agent) -> None:
    """What judging established about user code's determinism (on stderr)."""
    if isinstance(player, UserAgent):
        err.print(f"ttt: {player.established()}", markup=False)


def _share(x: float) -> str:
    """A probability as a decimal and a fraction, or in scientific notation when it is too
    small for both (a loss one game in a billion is not 0)."""
    if 0 < x < 1e-4:
        return f"{x:.2g}"
    return f"{x:.4f} ({_frac(x)})"


def table_text(step: TableProgress, what: str) -> str:
    """Where an exact evaluation is, in words: the seat's positions answered, of all of
    them, then the pass over the game graph that judges its answers."""
    if step.answered < step.positions:
        where = f"{step.answered:,} of {step.positions:,} positions answered"
    else:
        where = f"all {step.positions:,} positions answered; judging"
    return f"Evaluating {step.side.name} of {what}: {where} ({step.seconds:.0f} s)"


def proof_text(step: ProofProgress, what: str, cells: int) -> str:
    """Where a proof is, in words: the walk's size is not known until it ends, so there is
    no total, only the ply, the positions met and how much of the ply is answered."""
    where = f"ply {step.ply} of {cells}, {step.positions:,} positions"
    if step.asked:
        where += f", {step.asked:,} of {step.frontier:,} answered"
    return f"Proving {step.side.name} of {what}: {where} ({step.seconds:.0f} s)"


def _proved(
    player: Agent,
    argument: str,
    geometry: Geometry,
    side: str | None,
    as_json: bool,
    seconds: float | None,
) -> None:
    try:
        what = f"{player.name} on {geometry.name}"
        with err.status(f"Proving the worst case of {escape(what)}…") as status:
            line = StatusLine(status, err)
            evaluation = api.evaluate(
                player,
                geometry,
                side,
                prove=True,
                seconds=seconds,
                on_progress=lambda step: line.show(proof_text(step, what, geometry.cells)),
            )
    except TttlabError as error:
        raise CommandError(str(error)) from None
    _established(player)
    if as_json:
        print_json(evaluation.to_dict())
        return
    out.print(
        f"[bold]{player.name}[/bold] on {geometry.name} (proved without a table: every game "
        "it can play, every reply of the opponent)"
    )
    for seat, report in (("X", evaluation.X), ("O", evaluation.O)):
        if report is None:
            continue
        searched = f"{report.positions:,} positions in {report.seconds:.1f} s"
        if report.line is None:
            verdict = "unbeatable" if report.worst_case == 0 else "always wins"
            out.print(f"As {seat}: {verdict}: proved over {searched}.")
        else:
            _losing_line(report, seat, argument, geometry, searched)
        if report.win is not None and report.loss is not None:
            out.print(
                f"  Against random it wins {report.win:.4f} ({_frac(report.win)}), draws "
                f"{report.draw:.4f}, loses {_share(report.loss)} (exact)."
            )


def _losing_line(
    report: ProofReport, seat: str, argument: str, geometry: Geometry, searched: str
) -> None:
    assert report.line is not None
    assert report.final is not None
    movers = "XO"
    moves = ", ".join(f"{movers[i % 2]} {m + 1}" for i, m in enumerate(report.line))
    out.print(f"As {seat}: can be beaten in {len(report.line)} plies ({searched}): {moves}")
    out.print(board_text(Position.from_string(report.final, geometry), numbers=False))
    other = "O" if seat == "X" else "X"
    line = ",".join(str(m + 1) for m in report.line)
    board = f" --board {geometry.rows}x{geometry.cols} --k {geometry.k}"
    out.print(f"  Replay it: ttt play --opponent {argument} --as {other}{board} --moves {line}")
