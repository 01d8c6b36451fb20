"""``perfect`` past the full tables: a move per proof, checked against the exact tables on
small boards, and on 6×5 with k = 4 (a first-player win) never letting the win go."""

from __future__ import annotations

import numpy as np
import pytest

from tests.cli.helpers import ttt
from tttlab.agents import PerfectAgent, ProvedAgent, make_agent
from tttlab.errors import AgentError
from tttlab.game import Geometry, Position, state_space
from tttlab.solvers import solve_table
from tttlab.solvers.bitboard import ProofTable, prove

SIX_FIVE = Geometry.parse("6x5k4")


def test_every_3x3_move_keeps_the_game_value() -> None:
    geometry = Geometry()
    solution = solve_table(geometry)
    agent = ProvedAgent(geometry)
    space = state_space(geometry)
    checked = 0
    for row in range(space.size):
        position = space.position(row)
        if position.is_terminal:
            continue
        moves = agent.move_probabilities(position)
        assert set(moves) <= set(solution.optimal_moves(position)), position
        checked += 1
    assert checked == 4520  # every open position of 3x3 (FACTS)


@pytest.mark.parametrize("board", ["3x4k3", "4x3k3", "4x4k3"])
def test_sampled_moves_keep_the_value_on_bigger_tables(board: str) -> None:
    geometry = Geometry.parse(board)
    solution = solve_table(geometry)
    space = solution.space
    agent = ProvedAgent(geometry)
    rng = np.random.default_rng(7)
    rows = [r for r in rng.choice(space.size, 400, replace=False) if not space.terminal[r]]
    for row in rows:
        position = space.position(int(row))
        assert set(agent.move_probabilities(position)) <= set(solution.optimal_moves(position))
        values = agent.move_values(position)
        assert values is not None
        table = PerfectAgent(geometry, solution).move_values(position)
        assert values == table


def test_perfect_on_6x5_k4_plays_from_proofs_and_keeps_the_win() -> None:
    agent = make_agent("perfect", SIX_FIVE)
    assert isinstance(agent, ProvedAgent)
    rng = np.random.default_rng(0)
    opponents = [make_agent("random", SIX_FIVE), make_agent("minimax:2", SIX_FIVE), agent]
    for opponent in opponents:
        position = Position.initial(SIX_FIVE)
        while not position.is_terminal:
            mover = agent if position.to_move.sign == 1 else opponent
            move = mover.select_move(position, rng)
            if mover is agent:  # the same answer each time it is asked
                given = agent.move_probabilities(position)
                assert move in given
                assert agent.move_probabilities(position) == given
            position = position.apply(move)
        assert position.utility == 1, opponent.name


def test_a_lost_position_blocks_a_threat_and_a_slow_proof_is_refused() -> None:
    # O to move facing two threats (cells 3 and 15 complete X's lines): lost, so the proof
    # names no move; it blocks one of them rather than playing anywhere
    lost = Position.from_string("XXX.O/X..../X..../...../...O./...OO", SIX_FIVE)
    assert set(ProvedAgent(SIX_FIVE).move_probabilities(lost)) == {3, 15}
    slow = ProvedAgent(Geometry.parse("8x4k4"), time_limit=0.3)  # its proof takes 10 s
    with pytest.raises(AgentError, match=r"could not prove this 8x4k4 position within .* 0.3 s"):
        slow.move_probabilities(Position.initial(slow.geometry))


def test_the_root_names_its_move_when_the_table_already_knows_it() -> None:
    table = ProofTable(20)
    position = Position.initial(Geometry.parse("4x4k3"))
    first = prove(position, table=table)
    again = prove(position, table=table)
    assert first.value == again.value == 1
    assert again.best_move is not None
    after = prove(position.apply(again.best_move), table=ProofTable(20))
    assert after.value == 1


def test_ttt_play_against_perfect_on_6x5_k4() -> None:
    # as O, typing every cell in turn: X (perfect, from proofs) wins
    moves = [str(c) for c in range(1, 31)] + ["n"]
    result = ttt(
        "play", "--board", "6x5", "--k", "4", "--opponent", "perfect", "--as", "O",
        input="\n".join(moves) + "\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Result: perfect wins (X)." in result.stdout
