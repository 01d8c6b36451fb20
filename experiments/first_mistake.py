"""Result: docs/guides/networks.md, section '`ttt train alphazero`'.

Where a losing line first goes wrong: each of the agent's decisions on it, proved move by move.

    .venv/bin/python experiments/first_mistake.py az55.npz --as O --moves 13,7,4,17,12,14,3,8,2,1,5

``--moves`` is the line as ``ttt eval --prove`` prints it to replay (``ttt play --moves``):
1-based cells. At each position on the line where the agent (``--as``) is to move, every legal
move is proved by the compiled search (`perfect`'s ``move_values``, one proof table for the
whole line; boards up to its cell limit, each proof within ``--seconds``) and the line prints:
the ply, the moves that keep the best result the seat can force, the move played and whether it
keeps it, the network's value and its most probable moves (a network file; the raw network,
symmetrized if the file is). The first decision whose move does not keep the best result is the
agent's first mistake on the line; the plies after it say how deep the refutation is.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tttlab.agents.network import NetworkAgent
from tttlab.agents.proved import ProvedAgent
from tttlab.cli.play_cmd import parse_human_move
from tttlab.errors import TttlabError
from tttlab.game import Player, Position
from tttlab.io import load_agent_file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("file", type=Path)
    parser.add_argument("--as", dest="side", choices=("X", "O"), required=True)
    parser.add_argument("--moves", required=True, help="1-based cells, comma-separated")
    parser.add_argument("--seconds", type=float, default=60.0, help="time limit of one proof")
    parser.add_argument("--top", type=int, default=4, help="policy entries shown")
    args = parser.parse_args()
    try:
        walk(args)
    except TttlabError as error:  # a bad file, move or board: one line
        raise SystemExit(f"first_mistake: {error}") from None


def walk(args: argparse.Namespace) -> None:
    agent = load_agent_file(args.file)
    side = Player.X if args.side == "X" else Player.O
    judge = ProvedAgent(agent.geometry, time_limit=args.seconds)
    position = Position.initial(agent.geometry)
    first: int | None = None
    typed = args.moves.replace(",", " ").split()
    for text in typed:
        if position.is_terminal:
            raise TttlabError(f"--moves goes on after the game is over: {text}")
        move = parse_human_move(text, position)
        if position.to_move is side:
            proved = judge.move_values(position)  # the mover's +1 / 0 / -1, move by move
            values = {m: int(v) for m, v in (proved or {}).items()}
            best = max(values.values())
            keep = sorted(m for m, v in values.items() if v == best)
            kept = values[move] == best
            if not kept and first is None:
                first = position.ply + 1
            shown = ""
            if isinstance(agent, NetworkAgent):
                policy, value = agent.evaluate_position(position)
                top = sorted(policy.items(), key=lambda item: -item[1])[: args.top]
                head = "policy" if value is not None else "action values"
                shown = (f"; network value {value:+.3f}" if value is not None else "") + (
                    f", {head} " + ", ".join(f"{m + 1} {p:.2f}" for m, p in top)
                )
            if best < 0:
                verdict = f"lost whatever it plays; played {move + 1}"
            else:
                moves = ", ".join(str(m + 1) for m in keep)
                result = "keeps it" if kept else f"{values[move]:+d}"
                verdict = (
                    f"best {best:+d} by {moves} ({len(keep)} of {len(values)}); "
                    f"played {move + 1}: {result}"
                )
            stones = f"{position.ply} stone{'' if position.ply == 1 else 's'}"
            print(f"ply {position.ply + 1} ({stones}): {verdict}{shown}", flush=True)
        position = position.apply(move)
    total = len(typed)
    print(
        "no mistake on the line"
        if first is None
        else f"first mistake at ply {first}, {total - first} more "
        + ("ply" if total - first == 1 else "plies")
        + " to the end of the line"
    )


if __name__ == "__main__":
    main()
