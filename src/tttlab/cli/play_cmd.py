"""``ttt play``: a human against an agent in the terminal."""

from __future__ import annotations

import re

import click
import numpy as np

from tttlab.agents import Agent
from tttlab.agents.network import NetworkAgent
from tttlab.cli.common import (
    CommandError,
    board_options,
    convention_option,
    out,
    seed_option,
    side_option,
)
from tttlab.cli.loading import load_agents
from tttlab.errors import TttlabError
from tttlab.game import Geometry, Player, Position
from tttlab.render import board_text, values_text

__all__ = ["MoveInputError", "parse_human_move", "parse_moves", "play_command"]

# ASCII digits only: str.isdigit() and \d also accept characters such as '²' that int() refuses.
_PAIR = re.compile(r"^\s*(-?[0-9]{1,6})\s*[, ]\s*(-?[0-9]{1,6})\s*$", re.ASCII)
_NUMBER = re.compile(r"^[+-]?[0-9]{1,6}$", re.ASCII)
_QUIT = {"q", "quit", "exit"}


class MoveInputError(TttlabError):
    """What a person typed is not a move; the message says what to type instead."""


def parse_human_move(text: str, position: Position) -> int:
    """A 1-based cell number or a 1-based ``row,col`` → a legal 0-based cell index."""
    g = position.geometry
    typed = text.strip()
    pair = _PAIR.match(typed)
    if pair:
        row, col = int(pair.group(1)), int(pair.group(2))
        if not (1 <= row <= g.rows and 1 <= col <= g.cols):
            raise MoveInputError(f"row must be 1-{g.rows} and column 1-{g.cols}, got {row},{col}")
        cell = g.cell(row - 1, col - 1)
    elif _NUMBER.match(typed):
        number = int(typed)
        if not 1 <= number <= g.cells:
            raise MoveInputError(f"cell numbers run from 1 to {g.cells}, got {number}")
        cell = number - 1
    else:
        shown = typed if len(typed) <= 20 else typed[:20] + "…"
        raise MoveInputError(f"type a cell number 1-{g.cells} or row,col (like 2,3), not {shown!r}")
    if position.cells[cell]:
        row, col = g.row_col(cell)
        owner = Player(position.cells[cell]).name
        raise MoveInputError(f"cell {cell + 1} (row {row + 1}, col {col + 1}) is taken by {owner}")
    return cell


def _ask(prompt: str) -> str | None:
    """One line from the user, or None at end of input."""
    try:
        return input(prompt)
    except EOFError:
        return None


def _human_turn(position: Position) -> int | None:
    """Prompt until a legal move is typed; None if the user quits."""
    while True:
        text = _ask(
            f"Your move ({position.to_move.name}), 1-{position.geometry.cells}, row,col or q: "
        )
        if text is None or text.strip().lower() in _QUIT:
            return None
        try:
            return parse_human_move(text, position)
        except MoveInputError as error:
            out.print(f"[red]{error}[/red]")


def parse_moves(text: str, agent: Agent, human: Player, geometry: Geometry) -> tuple[int, ...]:
    """``--moves``: 1-based cells, X first, separated by commas or spaces → 0-based moves,
    each legal, and each of the agent's one it may play (so the game is one it can play)."""
    position = Position.initial(geometry)
    moves = []
    for typed in text.replace(",", " ").split():
        if position.is_terminal:
            raise MoveInputError(f"--moves goes on after the game is over: {typed}")
        try:
            move = parse_human_move(typed, position)
        except MoveInputError as error:
            raise MoveInputError(f"--moves: {error}") from None
        if position.to_move != human and move not in agent.move_probabilities(position):
            raise MoveInputError(
                f"--moves: {agent.name} would not play {move + 1} in {position.to_string('/')}"
            )
        moves.append(move)
        position = position.apply(move)
    return tuple(moves)


def _play_one(
    agent: Agent,
    human: Player,
    geometry: Geometry,
    rng: np.random.Generator,
    show_values: bool,
    opening: tuple[int, ...] = (),
) -> bool:
    """One game, from the moves of ``opening``; False if the user quit."""
    position = Position.initial(geometry)
    out.print(f"\nYou are {human.name}; {agent.name} is {human.other.name}. X moves first.")
    for given in opening:
        row, col = geometry.row_col(given)
        out.print(f"{position.to_move.name} plays {given + 1} (row {row + 1}, col {col + 1}).")
        position = position.apply(given)
    while not position.is_terminal:
        if position.to_move == human:
            out.print(board_text(position))
            move = _human_turn(position)
            if move is None:
                return False
        else:
            if show_values:
                values = agent.move_values(position)
                if values:
                    out.print(f"{agent.name}'s values (its own side, higher is better):")
                    out.print(values_text(position, values))
                if isinstance(agent, NetworkAgent) and agent.architecture.head != "q":
                    probabilities, value = agent.evaluate_position(position)
                    out.print(
                        f"{agent.name}'s network: value {value:+.2f} for its side; "
                        "move probabilities:"
                    )
                    out.print(values_text(position, probabilities))
            move = agent.select_move(position, rng)
            row, col = geometry.row_col(move)
            out.print(f"{agent.name} plays {move + 1} (row {row + 1}, col {col + 1}).")
        position = position.apply(move)
    out.print(board_text(position, numbers=False))
    outcome = position.outcome
    assert outcome is not None  # the loop only ends on a finished game
    if outcome.winner is None:
        out.print("[bold]Result: draw.[/bold]")
    elif outcome.winner == human:
        out.print(f"[bold green]Result: you win ({human.name}).[/bold green]")
    else:
        out.print(f"[bold red]Result: {agent.name} wins ({human.other.name}).[/bold red]")
    return True


@click.command("play")
@click.option(
    "--opponent",
    default="perfect",
    show_default=True,
    help="Agent to play against: random, perfect, minimax (or an agent file).",
)
@side_option("Your side; X moves first.", default="X")
@click.option(
    "--depth",
    type=click.IntRange(min=1),
    default=None,
    help="Search depth for minimax (default: to the end on small boards).",
)
@click.option("--show-values", is_flag=True, help="Show the agent's value of each empty cell.")
@click.option(
    "--moves",
    default=None,
    help="Start the first game with these moves (1-based cells, X first, e.g. 5,1,4), each "
    "of the agent's one it may play: replays a line `ttt eval --prove` found.",
)
@board_options
@convention_option
@seed_option
def play_command(
    opponent: str,
    side: str,
    depth: int | None,
    show_values: bool,
    moves: str | None,
    board: Geometry,
    k: int | None,
    seed: int | None,
    convention: str | None,
) -> None:
    """Play against an agent. Type a cell number as shown, or row,col; q quits."""
    geometry, (agent,) = load_agents([opponent], board, k, depth, convention=convention)
    human = Player.parse(side)
    rng = np.random.default_rng(seed)
    try:
        opening = parse_moves(moves, agent, human, geometry) if moves else ()
    except MoveInputError as error:
        raise CommandError(str(error)) from None
    while _play_one(agent, human, geometry, rng, show_values, opening):
        opening = ()
        answer = _ask("Play again? [y/N]: ")
        if answer is None or answer.strip().lower() not in ("y", "yes"):
            break
    out.print("Bye.")
